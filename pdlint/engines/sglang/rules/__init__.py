"""Every SGLang rule module in this package; importing it registers them all.

Modules are discovered (not listed), one per area, so each area's rules live
in one file: ``cmdline`` (SGL0xx), ``pd_*`` (SGL1xx, role-dependent), and the
role-independent areas (SGL2xx-SGL7xx)."""

import importlib
import pkgutil

for _mod in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    importlib.import_module(f"{__name__}.{_mod}")
