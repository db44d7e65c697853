"""The environment a system's worker process starts with: what Python needs to run, and what the system declares.

Nothing else of the harness's environment reaches the system: a knob it reads without declaring it is unset in
its process. The declared variables are bound by the sha256 of their values (harness.systems.plugin.bound).
"""

import os
from collections.abc import Mapping

from harness.systems.plugin.bound import HARNESS_ROOT

ALLOWED = ("PATH", "HOME", "LANG", "TMPDIR", "PYTHONPATH", "VIRTUAL_ENV", "HF_HUB_OFFLINE")
ALLOWED_PREFIXES = ("LC_",)  # the locale
ALLOWED_SUFFIXES = ("_NUM_THREADS",)  # thread caps (OMP, OpenBLAS, MKL, ...): they change speed, never a ranking
RULE = (f"only {', '.join(ALLOWED)}, {', '.join(p + '*' for p in ALLOWED_PREFIXES)}, "
        f"{', '.join('*' + s for s in ALLOWED_SUFFIXES)} and the variables the system declares")


def allowed(name: str) -> bool:
    return name in ALLOWED or name.startswith(ALLOWED_PREFIXES) or name.endswith(ALLOWED_SUFFIXES)


def worker_environment(declared: tuple[str, ...], source: Mapping[str, str] | None = None) -> dict[str, str]:
    """The worker's environment from `source` (the harness's own): the allowed names and the declared ones, with
    the harness importable first on PYTHONPATH."""
    source = os.environ if source is None else source
    environment = {name: value for name, value in source.items() if allowed(name) or name in declared}
    paths = [str(HARNESS_ROOT.parent), *filter(None, environment.get("PYTHONPATH", "").split(os.pathsep))]
    environment["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
    return environment
