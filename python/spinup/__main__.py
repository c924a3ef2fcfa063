"""``python -m spinup ARGS``: runs the executable with ARGS, replacing this process."""
import os
import sys

from spinup import find_spinup_bin


def main() -> None:
    spinup = find_spinup_bin()
    if sys.platform == "win32":
        import subprocess

        sys.exit(subprocess.call([spinup, *sys.argv[1:]]))
    os.execv(spinup, [spinup, *sys.argv[1:]])


if __name__ == "__main__":
    main()
