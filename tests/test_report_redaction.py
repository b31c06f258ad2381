"""`report` redaction: addresses, host and user names of every kind, public download hosts kept.

The log below is invented (no sample holds all kinds at once); its lines follow real formats:
hccn.conf (`address_0=`, `netmask_0=`), `ip addr` (link/ether, inet, inet6), a shell prompt,
`ls -l`, `id`, proxy variables, pip and git URLs.
"""

from __future__ import annotations

from wizard.cli.report_redact import redact_counted, summary

LOG = """\
[alice@node-17 ~]$ cat /etc/hccn.conf
address_0=192.168.100.101
netmask_0=255.255.255.0
    link/ether 3c:fd:fe:a1:b2:c3 brd ff:ff:ff:ff:ff:ff
    inet 10.20.30.40/24 brd 10.20.30.255 scope global eth0
    inet6 fe80::3efd:feff:fea1:b2c3/64 scope link
    inet6 2001:db8:85a3::8a2e:370:7334/64 scope global
    inet 127.0.0.1/8 scope host lo
    inet6 ::1/128 scope host
MAC 3C-FD-FE-A1-B2-C4 on card 1
export https_proxy=http://proxy.corp.example:3128
export no_proxy=localhost,127.0.0.1,.corp.internal
Looking in indexes: https://pypi.org/simple, https://mirror.intra.example/pypi
Downloading https://ascend-repo.obs.cn-east-2.myhuaweicloud.com/CANN/8.3.RC1/x.run
Cloning https://github.com/huggingface/lerobot.git into /home/alice/lerobot
ssh bob@build-server.lab
-rw-r--r-- 1 carol staff 4096 Jan  1 00:00 /data/koch_test
error: /data is owned by dave, not by root
Permission denied: user erin may not write here
uid=1001(frank) gid=1001(frank) groups=1001(frank),27(sudo)
driver 24.1.rc3, firmware 7.5.0.1.129, torch 2.1.0, time 12:34:56, std::vector
image sha256 ascend/cann@sha256:abcdef0123
HF_TOKEN=hf_abcdefghijklmnopqrstuvwx
"""


def test_every_kind_is_replaced():
    out, n = redact_counted(LOG, users=("alice",), hosts=("node-17",),
                            keep_hosts=("ascend-repo.obs.cn-east-2.myhuaweicloud.com", "https://github.com"))
    for private in ("192.168.100.101", "10.20.30.40", "10.20.30.255", "fe80::3efd", "2001:db8", "3c:fd:fe",
                    "3C-FD-FE", "proxy.corp.example", "corp.internal", "mirror.intra.example", "alice",
                    "node-17", "bob", "build-server", "carol", "staff", "dave", "erin", "frank", "hf_abc"):
        assert private not in out, private
    for kept in ("127.0.0.1/8", "::1/128", "255.255.255.0", "https://pypi.org/simple",
                 "https://ascend-repo.obs.cn-east-2.myhuaweicloud.com/CANN/8.3.RC1/x.run",
                 "https://github.com/huggingface/lerobot.git", "localhost,127.0.0.1", "not by root",
                 "24.1.rc3", "7.5.0.1.129", "2.1.0", "12:34:56", "std::vector", "cann@sha256:abcdef0123",
                 "groups=1001(<user>),27(sudo)"):
        assert kept in out, kept
    assert "address_0=<ip>" in out and "link/ether <mac> brd ff:ff:ff:ff:ff:ff" in out
    assert "[<user>@<host> ~]$" in out and "http://<host>:3128" in out and "/home/<user>/lerobot" in out
    assert "owned by <user>" in out and "user <user> may" in out and "-rw-r--r-- 1 <user> <user> 4096" in out
    assert n["ip"] == 5 and n["mac"] == 2 and n["secret"] == 1 and n["host"] >= 5 and n["user"] >= 8


def test_summary_says_exactly_what_was_replaced():
    _, n = redact_counted(LOG, users=("alice",), hosts=("node-17",))
    line = summary(n, names=True)
    assert line.startswith("redacted: 1 secret, 5 IP addresses, 2 MAC addresses, ") and "user names" in line
    kept, n = redact_counted(LOG, names=False, users=("alice",))
    assert "192.168.100.101" in kept and "alice" in kept and "hf_abc" not in kept
    assert summary(n, names=False) == ("redacted: 1 secret; IP/MAC addresses, host and user names kept "
                                       "(--no-redact)")


def test_our_own_report_words_survive():
    text = "- recipe: default sha256 abc; user override: no\n# user config: x\nnot found (/usr/local/Ascend)\n"
    out, n = redact_counted(text)
    assert out == text and not n


def test_hostile_input():
    for text in ("", "\x00\xff" * 1000, "a@" * 50_000, ":" * 100_000, "1." * 100_000):
        out, _ = redact_counted(text)
        assert isinstance(out, str)
