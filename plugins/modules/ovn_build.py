#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: ovn_build
short_description: Build OVN from source against an Open vSwitch tree, and install it
version_added: 0.3.0
description:
  - Lays out the Open vSwitch and OVN sources (a git URL and ref, an archive or a directory on the host), builds Open
    vSwitch in C(_build) without installing it (unless O(install_ovs)), builds OVN configured with
    C(--with-ovs-source) and C(--with-ovs-build) pointing at that tree, and installs OVN under O(prefix), as the
    ConnectX-6 Lx reference bench does by hand next to DOCA's Open vSwitch.
  - Reads first, then writes. A record next to the install (C(PREFIX/share/ovn/offload-testbed-build.json), with the
    OVN commit, the Open vSwitch commit, the configure flags and the prefix) and one in each source tree and build make
    a second run skip everything; a change of either source or of the flags rebuilds what depends on it.
  - O(ovs_ref=auto) reads C(ovs-vswitchd --version) on the host and picks the upstream tag of the same major.minor
    (the same patch release when tagged, else the nearest), saying why in the C(reason) of RV(ovs). O(ovs_ref=submodule) takes
    the commit the OVN tree pins in its C(ovs) submodule.
  - Every command's output goes to a log on the host (RV(logs)); a failed step reports the last lines of it.
  - The steps are C(fetch), C(boot) (C(./boot.sh)), C(configure), C(make) and C(install) of each component (and C(link)
    of the C(ovs-lib) C(ovn-ctl) loads); O(step) runs one of them, so that a caller (the role, with C(async)) shows
    each step and its time (RV(steps)). A build cut short resumes at the step after the last one done.
  - An archive or a directory whose tree is the other project's (C(configure.ac)'s C(AC_INIT), else
    C(vswitchd/ovs-vswitchd.c) or C(controller/ovn-controller.c)), such as the two archives given the other way
    round, is refused before anything is written.
  - With O(inspect), runs no build and only checks the archives and directories given (the role runs it on the
    controller before copying them) and returns their identity in RV(sources).
extends_documentation_fragment:
  - offload.testbed.module
attributes:
  check_mode:
    description: Resolves the refs and returns what would be fetched, built and installed (RV(plan), RV(commands)); writes nothing.
  diff_mode:
    support: full
    description: The install record before and after.
options:
  ovs_git_url:
    description: Git URL of Open vSwitch, used when neither O(ovs_archive) nor O(ovs_dir) is given.
    type: str
    default: https://github.com/openvswitch/ovs.git
  ovs_ref:
    description:
      - Tag, branch or full commit of Open vSwitch to fetch from O(ovs_git_url).
      - V(auto) picks the upstream tag closest to the Open vSwitch the host runs (C(ovs-vswitchd --version)).
      - V(submodule) takes the commit OVN pins (OVN from git only).
    type: str
    default: v3.3.8
  ovs_archive:
    description: Tarball of an Open vSwitch source tree on the host (one top directory with C(boot.sh)), for example made with C(git archive).
    type: path
  ovs_archive_sha256:
    description: SHA-256 the archive must have; checked before anything is built.
    type: str
  ovs_dir:
    description: Open vSwitch source tree on the host; copied into O(workdir) before building.
    type: path
  ovs_source_id:
    description: Identity of O(ovs_archive) or O(ovs_dir) as O(inspect) returned it; computed here when not given.
    type: str
  ovs_configure_options:
    description: More arguments of Open vSwitch's C(configure), for example C(--enable-shared).
    type: list
    elements: str
    default: []
  ovn_git_url:
    description: Git URL of OVN, used when neither O(ovn_archive) nor O(ovn_dir) is given.
    type: str
    default: https://github.com/ovn-org/ovn.git
  ovn_ref:
    description: Tag, branch or full commit of OVN to fetch from O(ovn_git_url).
    type: str
    default: v24.03.8
  ovn_archive:
    description: Tarball of an OVN source tree on the host.
    type: path
  ovn_archive_sha256:
    description: SHA-256 the OVN archive must have.
    type: str
  ovn_dir:
    description: OVN source tree on the host.
    type: path
  ovn_source_id:
    description: Identity of O(ovn_archive) or O(ovn_dir) as O(inspect) returned it.
    type: str
  ovn_configure_options:
    description: More arguments of OVN's C(configure).
    type: list
    elements: str
    default: []
  workdir:
    description: Directory on the host for the source trees (C(ovs/), C(ovn/)), their C(_build) directories and the build logs.
    type: path
    default: /usr/src/offload-testbed-ovn
  prefix:
    description: C(--prefix) of both builds; OVN (and Open vSwitch with O(install_ovs)) is installed there.
    type: path
    default: /usr
  sysconfdir:
    description: C(--sysconfdir) of both builds.
    type: path
    default: /etc
  localstatedir:
    description: C(--localstatedir) of both builds.
    type: path
    default: /var
  jobs:
    description: Parallel C(make) jobs; one per CPU of the host when not given.
    type: int
  install_ovs:
    description: Install the Open vSwitch build too (for hosts that run no Open vSwitch of their own).
    type: bool
    default: false
  ovs_lib:
    description:
      - The C(ovs-lib) of the Open vSwitch the host runs. C(ovn-ctl) loads C(PREFIX/share/openvswitch/scripts/ovs-lib);
        when O(prefix) has none (Open vSwitch not installed there), a link to this file is made.
    type: path
    default: /usr/share/openvswitch/scripts/ovs-lib
  inspect:
    description: Only check O(ovs_archive), O(ovs_dir), O(ovn_archive) and O(ovn_dir) and return their identity; build nothing.
    type: bool
    default: false
  variable_prefix:
    description: Prefix of the names errors give the options, so that they name the variables of the calling role (V(ovn_build_)).
    type: str
    default: ""
  step:
    description:
      - Run only this step of the plan, C(COMPONENT:STEP), when the plan has it; otherwise change nothing. The plan is
        read again first (under the work directory's lock), so a step another run has done meanwhile is not run twice.
      - Unset, the whole plan runs in one call.
    type: str
    choices: ["ovs:fetch", "ovs:boot", "ovs:configure", "ovs:make", "ovs:install",
              "ovn:fetch", "ovn:boot", "ovn:configure", "ovn:make", "ovn:install", "ovn:link"]
notes:
  - A build takes minutes (about 4 for both on two cores). One call prints nothing until it ends; the role runs
    each step as its own call with C(async) and polls it, so that each step shows while it runs, with its time.
seealso:
  - name: OVN installation guide
    description: Building OVN against an Open vSwitch source tree.
    link: https://docs.ovn.org/en/latest/intro/install/general.html
"""

EXAMPLES = r"""
- name: Build OVN v24.03.8 against Open vSwitch v3.3.8 (the ConnectX-6 Lx reference bench)
  offload.testbed.ovn_build:
    ovs_ref: v3.3.8
    ovn_ref: v24.03.8

- name: Build against the upstream tag closest to the Open vSwitch the host runs (DOCA-OVS)
  offload.testbed.ovn_build:
    ovs_ref: auto
  register: ovn_build_result

- name: Build from archives copied to the host, OVN under /opt/ovn
  offload.testbed.ovn_build:
    ovs_archive: /var/tmp/openvswitch-3.3.8.tar.gz
    ovn_archive: /var/tmp/ovn-24.03.8.tar.gz
    ovn_archive_sha256: 121b1a42864dc941b992041ee41b1071373e39e45d666f5aadcd01374980a6bc
    prefix: /opt/ovn
"""

RETURN = r"""
plan:
  description: What was done (or would be in check mode), a line per step; empty when everything was up to date.
  returned: always
  type: list
  elements: str
  sample: ["fetch Open vSwitch https://github.com/openvswitch/ovs.git v3.3.8 (bc99439446a1c0b94498ad7ea44f3d1d933ead90) into /usr/src/offload-testbed-ovn/ovs"]
commands:
  description: The commands of the plan, as shell lines.
  returned: always
  type: list
  elements: str
steps:
  description:
    - The steps of RV(plan), each with its C(component), C(step) and C(line); once run, with the C(seconds) it took
      and C(took), the same for people (C(1 min 54 s)).
  returned: unless O(inspect)
  type: list
  elements: dict
  sample: [{"component": "ovs", "step": "make", "line": "make Open vSwitch in /usr/src/offload-testbed-ovn/ovs/_build (make -j2)",
            "seconds": 114.2, "took": "1 min 54 s"}]
waited:
  description: Seconds this run waited for another build in the same work directory (the hosts of a one-box lab).
  returned: when something was to be run
  type: float
fetch:
  description: The components (C(ovs), C(ovn)) whose sources the plan fetches; the role copies only their archives and directories.
  returned: unless O(inspect)
  type: list
  elements: str
ovs:
  description: The Open vSwitch source (C(kind), C(ref), C(commit) or identity C(id), and C(reason) when O(ovs_ref=auto)).
  returned: always
  type: dict
ovn:
  description: The OVN source, as RV(ovs).
  returned: always
  type: dict
sources:
  description: With O(inspect), the identity of each archive or directory (C(ovs), C(ovn)).
  returned: when O(inspect)
  type: dict
facts:
  description:
    - Where the OVN that runs is (C(prefix), C(bindir), C(ovn_ctl), C(nb_schema), C(sb_schema)) and what it is
      (C(ovn_version), C(ovs_library_version), C(ovn_commit), C(ovs_commit)), for the ovn_central and ovn_controller roles.
  returned: unless O(inspect)
  type: dict
logs:
  description: The build logs on the host, per component.
  returned: unless O(inspect)
  type: dict
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.offload.testbed.plugins.module_utils.datapath import ovn_build as ob
from ansible_collections.offload.testbed.plugins.module_utils.datapath.ovn_build_host import Host, StepFailed, build, inspect_sources


def argument_spec():
    spec = {}
    for comp, url, ref in (('ovs', 'https://github.com/openvswitch/ovs.git', 'v3.3.8'),
                           ('ovn', 'https://github.com/ovn-org/ovn.git', 'v24.03.8')):
        spec.update({comp + '_git_url': dict(type='str', default=url), comp + '_ref': dict(type='str', default=ref),
                     comp + '_archive': dict(type='path'), comp + '_archive_sha256': dict(type='str'),
                     comp + '_dir': dict(type='path'), comp + '_source_id': dict(type='str'),
                     comp + '_configure_options': dict(type='list', elements='str', default=[])})
    spec.update(workdir=dict(type='path', default='/usr/src/offload-testbed-ovn'), prefix=dict(type='path', default='/usr'),
                sysconfdir=dict(type='path', default='/etc'), localstatedir=dict(type='path', default='/var'),
                jobs=dict(type='int'), install_ovs=dict(type='bool', default=False),
                ovs_lib=dict(type='path', default='/usr/share/openvswitch/scripts/ovs-lib'),
                inspect=dict(type='bool', default=False), variable_prefix=dict(type='str', default=''),
                step=dict(type='str', choices=['%s:%s' % (comp, step) for comp in ob.COMPONENTS for step in ob.STEPS
                                               if step != 'link' or comp == 'ovn']))
    return spec


def main():
    module = AnsibleModule(argument_spec=argument_spec(), supports_check_mode=True)
    params = module.params
    host = Host(module)
    errors = ob.check_options(params, host.name)
    if errors:
        module.fail_json(msg='Invalid OVN build settings: ' + '; '.join(errors), errors=errors)
    if params['inspect']:
        sources, errors = inspect_sources(params, host.name)
        if errors:
            module.fail_json(msg='Invalid OVN build sources: ' + '; '.join(errors), errors=errors)
        module.exit_json(changed=False, sources=sources)
    try:
        result = build(module, host, params)
    except ob.BuildError as exc:
        module.fail_json(msg='Invalid OVN build settings: ' + '; '.join(exc.errors), errors=exc.errors)
    except StepFailed as exc:
        module.fail_json(msg=str(exc), log=exc.log, log_tail=exc.tail)
    module.exit_json(**result)


if __name__ == '__main__':
    main()
