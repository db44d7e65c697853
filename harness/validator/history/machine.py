"""This machine's id by the validator's own rule (the rule the receipt's `heldout_looks.machine_id` states):
"sha256:" + hex(sha256(UTF-8 of the first line of /etc/machine-id, else /var/lib/dbus/machine-id, else the
platform's own id: IOPlatformUUID on macOS, MachineGuid on Windows)); None when there is none. "This machine" is
decided by it, never by a host name two machines may share."""

import hashlib
import subprocess
import sys
from pathlib import Path

ID_FILES = (Path("/etc/machine-id"), Path("/var/lib/dbus/machine-id"))


def _platform() -> str | None:
    try:
        if sys.platform == "darwin":
            out = subprocess.run(["ioreg", "-rd1", "-c", "IOPlatformExpertDevice"], capture_output=True, text=True,
                                 timeout=10, check=False).stdout
            found = [line.split("=")[-1].strip().strip('"') for line in out.splitlines() if "IOPlatformUUID" in line]
            return found[0] if found and found[0] else None
        if sys.platform == "win32":
            import winreg  # type: ignore[import-not-found,unused-ignore]
            with winreg.OpenKey(winreg.HKEY_LOCAL_MACHINE, r"SOFTWARE\Microsoft\Cryptography") as key:
                return str(winreg.QueryValueEx(key, "MachineGuid")[0]) or None
    except (OSError, subprocess.SubprocessError):
        return None
    return None


def this_machine() -> str | None:
    for path in ID_FILES:
        try:
            first = path.read_text(encoding="utf-8").splitlines()[:1]
        except (OSError, UnicodeDecodeError):
            continue
        if first and first[0].strip():
            return "sha256:" + hashlib.sha256(first[0].strip().encode("utf-8")).hexdigest()
    found = _platform()
    return None if found is None else "sha256:" + hashlib.sha256(found.encode("utf-8")).hexdigest()
