# SPDX-License-Identifier: GPL-2.0
"""QEMU's human monitor on a unix socket (-monitor unix:PATH,server,nowait), for the scripts
that migrate a guest: scripts/vm-run --migrate and scripts/check-migrate-stream."""
import socket
import time


class Monitor:
    """A connection to the monitor; each command returns what QEMU printed up to its prompt."""

    def __init__(self, path, proc=None, timeout=30):
        """Connects to `path`, waiting up to 30 s for QEMU to create it (OSError if QEMU, the
        Popen `proc` if given, exits first)."""
        for _ in range(300):
            if proc is not None and proc.poll() is not None:
                raise OSError("QEMU exited")
            try:
                self.s = socket.socket(socket.AF_UNIX)
                self.s.connect(path)
                break
            except OSError:
                time.sleep(0.1)
        else:
            raise OSError("no monitor at " + path)
        self.s.settimeout(timeout)
        self.read()

    def read(self):
        buf = b""
        while not buf.endswith(b"(qemu) "):
            data = self.s.recv(65536)
            if not data:
                break
            buf += data
        return buf.decode(errors="replace")

    def cmd(self, c):
        self.s.sendall(c.encode() + b"\n")
        return self.read()

    def quit(self):
        """Ends QEMU (no reply comes)."""
        self.s.sendall(b"quit\n")

    def migrate_to_file(self, path, timeout=600):
        """Migrates the machine to `path` and waits for the end: QEMU's last `info migrate`,
        which says "completed" or "failed" (or neither, after `timeout` seconds)."""
        self.cmd('migrate "exec:cat > %s"' % path)
        r = ""
        for _ in range(int(timeout * 10)):
            r = self.cmd("info migrate")
            if "completed" in r or "failed" in r:
                break
            time.sleep(0.1)
        return r
