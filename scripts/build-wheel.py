#!/usr/bin/env python3
"""`npm run wheel` (after `npm run sea`): dist/spinup-VERSION-py3-none-PLATFORM.whl (issue 27).

A wheel that carries the single executable as the way ruff and uv ship theirs: the file in the
wheel's data/scripts, which pip installs straight onto the environment's PATH (no Python shim
between the user and spinup), and a tiny `spinup` package for `python -m spinup`. Written with
the standard library alone (a wheel is a zip with METADATA, WHEEL and RECORD), so any python3
builds it offline, with no build backend to download.

    python3 scripts/build-wheel.py [--out DIR]
"""
import argparse
import base64
import hashlib
import json
import os
import platform
import sys
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The oldest glibc Node 20's official linux binaries run on: the executable is one of them.
PLATFORM_TAGS = {"x86_64": "manylinux_2_28_x86_64", "aarch64": "manylinux_2_28_aarch64"}
NODE_ARCH = {"x86_64": "x64", "aarch64": "arm64"}


def record_line(path: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}"


def metadata(package: dict) -> str:
    return "\n".join(
        [
            "Metadata-Version: 2.1",
            f"Name: {package['name']}",
            f"Version: {package['version']}",
            f"Summary: {package['description']}",
            f"License: {package['license']}",
            "Requires-Python: >=3.8",
            "Classifier: Environment :: Console",
            "Classifier: Operating System :: POSIX :: Linux",
            "",
            "spinup as one executable (Node is inside it): `spinup watch LOG`, `spinup run -- vllm serve ...`.",
            "",
        ]
    )


def build(out_dir: str) -> str:
    with open(os.path.join(ROOT, "package.json"), encoding="utf-8") as file:
        package = json.load(file)
    machine = platform.machine()
    if machine not in PLATFORM_TAGS:
        sys.exit(f"build-wheel: no wheel for a {machine} machine (x86_64 and aarch64 only)")
    executable = os.path.join(ROOT, "dist", f"spinup-linux-{NODE_ARCH[machine]}")
    if not os.path.isfile(executable):
        sys.exit(f"build-wheel: {os.path.relpath(executable, ROOT)} is missing: run `npm run sea` first")
    name, version = package["name"], package["version"]
    tag = f"py3-none-{PLATFORM_TAGS[machine]}"
    dist_info, data = f"{name}-{version}.dist-info", f"{name}-{version}.data"
    wheel_file = os.path.join(out_dir, f"{name}-{version}-{tag}.whl")

    files = []  # (path in the wheel, bytes, unix mode)
    for module in sorted(os.listdir(os.path.join(ROOT, "python", "spinup"))):
        if module.endswith(".py"):
            with open(os.path.join(ROOT, "python", "spinup", module), "rb") as file:
                files.append((f"spinup/{module}", file.read(), 0o644))
    with open(executable, "rb") as file:
        files.append((f"{data}/scripts/spinup", file.read(), 0o755))
    files.append((f"{dist_info}/METADATA", metadata(package).encode(), 0o644))
    wheel = f"Wheel-Version: 1.0\nGenerator: spinup scripts/build-wheel.py\nRoot-Is-Purelib: false\nTag: {tag}\n"
    files.append((f"{dist_info}/WHEEL", wheel.encode(), 0o644))
    record = [record_line(path, content) for path, content, _ in files] + [f"{dist_info}/RECORD,,"]
    files.append((f"{dist_info}/RECORD", ("\n".join(record) + "\n").encode(), 0o644))

    os.makedirs(out_dir, exist_ok=True)
    with zipfile.ZipFile(wheel_file, "w") as wheel_zip:
        for path, content, mode in files:
            info = zipfile.ZipInfo(path, date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            # Level 1: the executable deflates to 40 MB in about a second; level 6 saves 3 MB in 4 s more.
            wheel_zip.writestr(info, content, compresslevel=1)
    return wheel_file


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(ROOT, "dist"), help="the folder to write the wheel into (default: dist/)")
    print(f"build-wheel: {os.path.relpath(build(parser.parse_args().out), os.getcwd())}")
