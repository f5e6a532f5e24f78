"""Every SGLang rule module in this package; importing it registers them all.

Modules are discovered (not listed), one per area, so each area's rules live
in one file: ``cmdline`` (SGL0xx), ``pd_*`` (SGL1xx, role-dependent), and the
role-independent areas (SGL2xx-SGL7xx)."""

from pdlint.rules import import_submodules

import_submodules(__name__, __path__)
