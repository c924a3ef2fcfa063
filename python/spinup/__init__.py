"""spinup's single executable, shipped in a wheel the way ruff and uv ship theirs.

pip puts the executable itself on the PATH (the wheel's data/scripts); this package only finds
it, for ``python -m spinup``.
"""
import os
import sys
import sysconfig


def find_spinup_bin() -> str:
    """The path of the spinup executable this wheel installed."""
    name = "spinup.exe" if sys.platform == "win32" else "spinup"
    candidates = [sysconfig.get_path("scripts"), sysconfig.get_path("scripts", vars={"base": sys.base_prefix})]
    user_scheme = sysconfig.get_preferred_scheme("user") if hasattr(sysconfig, "get_preferred_scheme") else None
    if user_scheme:
        candidates.append(sysconfig.get_path("scripts", scheme=user_scheme))
    for directory in candidates:
        path = os.path.join(directory, name)
        if os.path.isfile(path):
            return path
    raise FileNotFoundError(f"the spinup executable is not in any of {candidates}; reinstall the spinup wheel")
