# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Open vSwitch and OVN release archives the OVN build tests and
`make lab OVN=source` build from (`make sources`).

Usage:
  python tools/ovn_sources.py            find each archive, fetch it when it has to be, check it, say where it is
  python tools/ovn_sources.py --digest ARCHIVE...
                                         print the SHA-256, tree digest and git commit of archives (how the sums
                                         kept in plugins/module_utils/datapath/ovn_sources.py were measured)

Where they are looked for (OFFLOAD_TESTBED_SOURCES, ../shared/sources, the
cache .tmp/sources, upstream) and how they are checked: the resolver,
plugins/module_utils/datapath/ovn_sources.py, and docs/ovn.md. Exit status
1 with one message that says what is missing, from where, and how to give it.
"""
import importlib.util
import os
import sys
import tarfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
_LINK_SPEC = importlib.util.spec_from_file_location("collection_link", os.path.join(ROOT, "tools", "collection_link.py"))
_COLLECTION_LINK = importlib.util.module_from_spec(_LINK_SPEC)
_LINK_SPEC.loader.exec_module(_COLLECTION_LINK)
_COLLECTION_LINK.link_collection(ROOT)

# pylint: disable=wrong-import-position
from ansible_collections.offload.testbed.plugins.module_utils.datapath import ovn_build  # noqa: E402
from ansible_collections.offload.testbed.plugins.module_utils.datapath import ovn_sources  # noqa: E402


def digest(path):
    """The three measures of an archive the resolver compares."""
    with tarfile.open(path) as tar:
        commit = (tar.pax_headers or {}).get("comment", "") or "-"
    return "%s  sha256 %s  tree %s  commit %s" % (os.path.basename(path), ovn_build.file_sha256(path),
                                                  ovn_build.content_digest(ovn_build.archive_entries(path)), commit)


def main(argv):
    if argv[:1] == ["--digest"]:
        for path in argv[1:]:
            print(digest(path))
        return 0
    if argv:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        found = ovn_sources.find(ovn_sources.ARCHIVES, ROOT)
    except ovn_sources.SourceError as exc:
        print("ovn_sources: the release archives the OVN build needs cannot be had: %s" % exc, file=sys.stderr)
        return 1
    for each in found:
        how = "SHA-256" if each["verified"] == "sha256" else "tree digest"
        print("ovn_sources: %s: %s (%s; verified by its %s)" % (each["name"], each["path"], each["origin"], how))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
