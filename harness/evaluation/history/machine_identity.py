"""This machine's identity for the held-out record: a digest of the operating system's machine id, stable across
renames, with the host name beside it for people (two machines may share a host name; they do not share an id).

    machine_id = "sha256:" + hex(sha256(the first line of /etc/machine-id, else /var/lib/dbus/machine-id, else
                 the platform's own id: IOPlatformUUID on macOS, MachineGuid on Windows))

None when the machine has none of them: then no reader can tell this machine from another, and the looks its
receipts state are attested wherever they are read.
"""

import hashlib
import subprocess
import sys
from pathlib import Path

MACHINE_ID_FILES = (Path("/etc/machine-id"), Path("/var/lib/dbus/machine-id"))
MACHINE_ID_RULE = ('"sha256:" + hex(sha256(UTF-8 of the first line of /etc/machine-id, else /var/lib/dbus/machine-id, '
                   "else the platform's own id (IOPlatformUUID on macOS, MachineGuid on Windows)); null when none")


def _platform_id() -> str | None:
    try:
        if sys.platform == "darwin":
            text = subprocess.run(["ioreg", "-rd1", "-c", "IOPlatformExpertDevice"], capture_output=True,
                                  text=True, timeout=10, check=False).stdout
            line = next((line for line in text.splitlines() if "IOPlatformUUID" in line), "")
            return line.split("=")[-1].strip().strip('"') or None
        if sys.platform == "win32":
            import winreg  # type: ignore[import-not-found,unused-ignore]
            with winreg.OpenKey(winreg.HKEY_LOCAL_MACHINE, r"SOFTWARE\Microsoft\Cryptography") as key:
                return str(winreg.QueryValueEx(key, "MachineGuid")[0]) or None
    except (OSError, subprocess.SubprocessError):
        return None
    return None


def machine_id() -> str | None:
    """This machine's id by the module's rule."""
    for path in MACHINE_ID_FILES:
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            continue
        if lines and lines[0].strip():
            return "sha256:" + hashlib.sha256(lines[0].strip().encode("utf-8")).hexdigest()
    found = _platform_id()
    return None if found is None else "sha256:" + hashlib.sha256(found.encode("utf-8")).hexdigest()
