"""A real SMTP server for the guest-message tests (aiosmtpd), on 127.0.0.1.

    python3 smtp_server.py DIR [--plain] [--port N]

Makes a throwaway CA and a certificate for 127.0.0.1 signed by it in DIR
(ca.pem is what the client is told to trust), requires STARTTLS and then
AUTH (user `rental`, password `s3cret`) unless --plain, and writes its port
to DIR/port once it listens. Each message accepted is appended to
DIR/received.jsonl as one JSON object: envelope, every header in order
(duplicates kept), the text and HTML parts, the raw bytes.

DIR/replies, read at each DATA, scripts the answers: one per line, used in
order and then consumed (`451`, `550`, `hang 5` = write the message to
DIR/hanging, wait 5 s, then accept it); an empty or missing file answers 250.
"""

import argparse
import asyncio
import email
import email.policy
import json
import logging
import os
import socket
import ssl
import subprocess
import sys
import time

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

USER, PASSWORD = b"rental", b"s3cret"


def make_certificates(d):
    def run(*args):
        subprocess.run(["openssl", *args], check=True, capture_output=True)

    ca_key, ca, key, csr, cert = (os.path.join(d, n) for n in ("ca.key", "ca.pem", "key.pem", "req.csr", "cert.pem"))
    if os.path.exists(cert):
        return cert, key
    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", ca_key, "-out", ca, "-days", "2",
        "-subj", "/CN=rental test CA", "-addext", "basicConstraints=critical,CA:TRUE",
        "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", csr, "-subj", "/CN=127.0.0.1")
    ext = os.path.join(d, "leaf.ext")
    with open(ext, "w") as f:
        f.write("basicConstraints=critical,CA:FALSE\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n"
                "keyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n")
    run("x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial", "-out", cert,
        "-days", "2", "-extfile", ext)
    return cert, key


def authenticator(server, session, envelope, mechanism, auth_data):
    ok = isinstance(auth_data, LoginPassword) and auth_data.login == USER and auth_data.password == PASSWORD
    return AuthResult(success=ok, handled=False)


class Handler:
    def __init__(self, d):
        self.dir = d

    def next_reply(self):
        path = os.path.join(self.dir, "replies")
        try:
            with open(path) as f:
                lines = [l.strip() for l in f if l.strip()]
        except FileNotFoundError:
            return "250"
        if not lines:
            return "250"
        with open(path + ".tmp", "w") as f:
            f.write("".join(l + "\n" for l in lines[1:]))
        os.replace(path + ".tmp", path)
        return lines[0]

    async def handle_DATA(self, server, session, envelope):
        reply = self.next_reply()
        if reply.startswith("hang"):
            with open(os.path.join(self.dir, "hanging"), "w") as f:
                f.write(envelope.original_content.decode("utf-8", "replace"))
            await asyncio.sleep(float(reply.split()[1]))
            reply = "250"
        if reply.startswith("4"):
            return "451 4.3.0 try again later"
        if reply.startswith("5"):
            return "550 5.1.1 mailbox unavailable"
        msg = email.message_from_bytes(envelope.original_content, policy=email.policy.default)
        parts = {"text": None, "html": None}
        for part in msg.walk():
            kind = part.get_content_type()
            if kind in ("text/plain", "text/html") and not part.is_multipart():
                parts["text" if kind == "text/plain" else "html"] = part.get_content()
        record = {
            "mailFrom": envelope.mail_from,
            "rcptTos": envelope.rcpt_tos,
            "headers": [[k, str(v)] for k, v in msg.items()],
            "contentType": msg.get_content_type(),
            "text": parts["text"],
            "html": parts["html"],
            "raw": envelope.original_content.decode("utf-8", "replace"),
            "tls": session.ssl is not None,
            "authenticated": session.authenticated,
            "at": time.time(),
        }
        with open(os.path.join(self.dir, "received.jsonl"), "a") as f:
            f.write(json.dumps(record) + "\n")
        return "250 2.0.0 OK"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    # aiosmtpd logs a deprecation of its own at every AUTH: not the test's business.
    logging.getLogger("mail.log").setLevel(logging.ERROR)
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--plain", action="store_true")
    ap.add_argument("--port", type=int, default=0)
    args = ap.parse_args()
    port = args.port or free_port()
    kwargs = {}
    if not args.plain:
        cert, key = make_certificates(args.dir)
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(cert, key)
        kwargs = dict(tls_context=context, require_starttls=True, auth_required=True,
                      auth_require_tls=True, authenticator=authenticator)
    controller = Controller(Handler(args.dir), hostname="127.0.0.1", port=port, ready_timeout=10,
                            decode_data=False, **kwargs)
    controller.start()
    with open(os.path.join(args.dir, "port.tmp"), "w") as f:
        f.write(str(port))
    os.replace(os.path.join(args.dir, "port.tmp"), os.path.join(args.dir, "port"))
    try:
        sys.stdin.read()  # runs until the test closes our stdin (or dies)
    finally:
        controller.stop()


if __name__ == "__main__":
    main()
