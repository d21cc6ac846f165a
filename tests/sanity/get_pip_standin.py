"""Offline stand-in for the get-pip bootstrap script that ansible-test downloads.

``ansible-test sanity`` bootstraps pip into each of its virtual environments
with a script it fetches from the internet; our CI machines cannot reach it.
``make test`` copies this file to ``~/.ansible/test/cache/get_pip_<version>.py``;
it installs pip from the Python's own ``ensurepip`` wheel, then lets that pip
install what ansible-test asked for (``pip==<version>`` and friends, from PyPI).
"""
import ensurepip
import os
import subprocess
import sys

# The pip that ensurepip brings (23.x) ignores a `cert` set in pip.conf, and
# ansible-test drops PIP_CERT from the environment: name the CA bundle here.
CA_BUNDLES = ("/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt")


def main():
    """Bootstrap pip, then install the requested packages with it."""
    ensurepip.bootstrap(upgrade=True)
    args = [arg for arg in sys.argv[1:] if arg not in ("--no-setuptools", "--no-wheel")]
    bundles = [path for path in CA_BUNDLES if os.path.exists(path)]
    if bundles:
        args = ["--cert", bundles[0]] + args
    subprocess.check_call([sys.executable, "-m", "pip", "install", "--disable-pip-version-check"] + args)


if __name__ == "__main__":
    main()
