"""A real Mosquitto for the MQTT sync tests: Debian's package, a loopback port, a password file and the ACL of
``docs/sync.md``, started by the test and stopped by PID."""

from __future__ import annotations

import getpass
import socket
import subprocess
import time
from pathlib import Path

from backends import free_loopback_port
from installs import apt_install

MOSQUITTO = "/usr/sbin/mosquitto"
PASSWD = "/usr/bin/mosquitto_passwd"
HUB_USER = "hub"
#: the ACL the protocol needs: a device writes only its up topic and reads only its down topic and the shared
#: ones (a `topic` line outside a `user` block is for anonymous clients only, so the shared read is a pattern)
ACL = """\
pattern write dynabase/v1/+/up/%c
pattern read dynabase/v1/+/down/%c
pattern read dynabase/v1/+/shared/#

user hub
topic readwrite dynabase/v1/#
"""


def ensure_mosquitto() -> str | None:
    """None when Mosquitto and mosquitto_passwd are installed (installing Debian's package if need be)."""
    return apt_install("mosquitto", MOSQUITTO) or apt_install("mosquitto", PASSWD)


class Broker:
    """``users``: name -> password; ``tls``: (ca, cert, key) paths for an ``mqtts`` listener."""

    def __init__(
        self, directory: Path, users: dict[str, str], tls: tuple[str, str, str] | None = None
    ) -> None:
        self.directory = directory
        self.users = users
        self.port = free_loopback_port()
        self.tls = tls
        self.process: subprocess.Popen[str] | None = None
        passwords = directory / "passwords"
        # plain `name:password` lines hashed in place by one `mosquitto_passwd -U` (one `-b` per user took
        # ~70 ms each: half a minute for the 500 devices of bench/sync_bench.py --mqtt)
        passwords.write_text("".join(f"{name}:{password}\n" for name, password in users.items()))
        if users:
            subprocess.run([PASSWD, "-U", str(passwords)], check=True, capture_output=True)
        (directory / "acl").write_text(ACL)
        lines = [
            f"listener {self.port} 127.0.0.1",
            "allow_anonymous false",
            f"acl_file {directory / 'acl'}",
            "persistence false",
            "set_tcp_nodelay true",  # as docs/sync.md advises: no 40 ms Nagle wait on a message to a device
            f"user {getpass.getuser()}",  # run as root it would switch to `mosquitto`, who cannot read tmp_path
            "log_dest stderr",
            "log_type error",
            "log_type warning",
        ]
        if users:
            lines.append(f"password_file {passwords}")
        if tls:  # a client certificate's common name is its user name (the ACL's `user` lines)
            ca, cert, key = tls
            lines += [f"cafile {ca}", f"certfile {cert}", f"keyfile {key}"]
            lines += ["require_certificate true", "use_identity_as_username true"]
        self.config = directory / "mosquitto.conf"
        self.config.write_text("\n".join(lines) + "\n")

    @property
    def url(self) -> str:
        return f"{'mqtts' if self.tls else 'mqtt'}://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [MOSQUITTO, "-c", str(self.config)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # a hang guard: it accepts connections within milliseconds
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"mosquitto exited: {self.process.stderr.read() if self.process.stderr else ''}"
                )
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.02)
        raise RuntimeError(f"mosquitto did not listen on {self.port}")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None
