"""The SDK's build backend (PEP 517 / PEP 660), standard library only.

`pip install sdk/python` builds with it and needs nothing from a package index (no setuptools, no
wheel), and it writes nothing into the source folder: the wheel goes straight into the directory
pip names, read from the package's files (no build/ or *.egg-info/ folder next to them).
"""
import base64
import hashlib
import io
import os
import re
import tarfile
import time
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "skin_gateway"


def _project():
    """The [project] table's plain string values of pyproject.toml (all this backend reads)."""
    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as f:
        text = f.read()
    table = re.search(r"^\[project\]\s*$(.*?)(?=^\[|\Z)", text, re.M | re.S).group(1)
    return dict(re.findall(r'^([A-Za-z-]+)\s*=\s*"([^"]*)"\s*$', table, re.M))


def _names():
    p = _project()
    return p, re.sub(r"[-_.]+", "_", p["name"]).lower(), p["version"]


def _metadata():
    p, _, version = _names()
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    head = [
        "Metadata-Version: 2.1",
        "Name: " + p["name"],
        "Version: " + version,
        "Summary: " + p.get("description", ""),
        "Requires-Python: " + p.get("requires-python", ">=3.8"),
        "Description-Content-Type: text/markdown",
    ]
    return "\n".join(head) + "\n\n" + readme


def _wheel_file():
    return "Wheel-Version: 1.0\nGenerator: skin-gateway stdlib_backend\nRoot-Is-Purelib: true\nTag: py3-none-any\n"


def _package_files():
    """(path in the wheel, bytes) of every module of the package, sorted."""
    out = []
    for folder, dirs, files in os.walk(os.path.join(ROOT, PACKAGE)):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                full = os.path.join(folder, name)
                with open(full, "rb") as f:
                    out.append((os.path.relpath(full, ROOT).replace(os.sep, "/"), f.read()))
    return out


def _write_wheel(wheel_directory, files):
    _, dist, version = _names()
    info = "%s-%s.dist-info" % (dist, version)
    files = files + [
        (info + "/METADATA", _metadata().encode("utf-8")),
        (info + "/WHEEL", _wheel_file().encode("utf-8")),
        (info + "/top_level.txt", (PACKAGE + "\n").encode("utf-8")),
    ]
    record = []
    for path, data in files:
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
        record.append("%s,sha256=%s,%d" % (path, digest, len(data)))
    record.append(info + "/RECORD,,")
    files.append((info + "/RECORD", ("\n".join(record) + "\n").encode("utf-8")))
    name = "%s-%s-py3-none-any.whl" % (dist, version)
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        for path, data in files:
            z.writestr(zipfile.ZipInfo(path, (2016, 1, 1, 0, 0, 0)), data, zipfile.ZIP_DEFLATED)
    return name


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    _, dist, version = _names()
    info = "%s-%s.dist-info" % (dist, version)
    os.makedirs(os.path.join(metadata_directory, info), exist_ok=True)
    for name, text in (("METADATA", _metadata()), ("WHEEL", _wheel_file()), ("top_level.txt", PACKAGE + "\n")):
        with open(os.path.join(metadata_directory, info, name), "w", encoding="utf-8") as f:
            f.write(text)
    return info


prepare_metadata_for_build_editable = prepare_metadata_for_build_wheel


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, _package_files())


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """`pip install -e`: a .pth file that puts this folder on sys.path."""
    _, dist, _ = _names()
    return _write_wheel(wheel_directory, [(dist + ".pth", (ROOT + "\n").encode("utf-8"))])


def build_sdist(sdist_directory, config_settings=None):
    _, dist, version = _names()
    base = "%s-%s" % (dist, version)
    name = base + ".tar.gz"
    members = [("pyproject.toml", None), ("README.md", None), ("_build/stdlib_backend.py", None)]
    members += [(path, data) for path, data in _package_files()]
    pkg_info = _metadata().encode("utf-8")
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz", format=tarfile.PAX_FORMAT) as t:
        for path, data in members + [("PKG-INFO", pkg_info)]:
            if data is None:
                with open(os.path.join(ROOT, path), "rb") as f:
                    data = f.read()
            ti = tarfile.TarInfo(base + "/" + path)
            ti.size = len(data)
            ti.mtime = int(time.time())
            t.addfile(ti, io.BytesIO(data))
    return name
