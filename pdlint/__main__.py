"""``python -m pdlint``."""

from pdlint.cli import main

raise SystemExit(main())
