"""Provides `redact_counted`: what `pi05-wizard report` hides before the report is written.

Always hidden (secrets): `*TOKEN*=`, `*PASSWORD*=`, `*SECRET*=`, `*API_KEY*=` assignments (env dumps,
shell lines), `--token X` flags, `hf_...` Hugging Face tokens, Authorization headers, and
`user:password@` in URLs.

Hidden unless names are kept (`--no-redact`):
- IPv4 and IPv6 addresses (`<ip>`), loopback (127.0.0.0/8, ::1), unspecified (0.0.0.0, ::) and
  netmasks (255.255.255.0) kept; this covers hccn.conf's `address_0=...` lines;
- MAC addresses `aa:bb:cc:dd:ee:ff` / `aa-bb-...` (`<mac>`), broadcast and all-zero kept;
- host names: the given ones (the local host name), the host of `user@host`, the host of every
  `http(s)://`, `socks5://` or `ftp://` URL and of `*_proxy=` values (`<host>`), except localhost and
  the public download hosts (the recipe's `network.hosts` and their subdomains, plus `KEEP_HOSTS`),
  which help support;
- user names: the given ones, `/home/<name>`, the user of `user@host`, "owned by NAME", "user NAME",
  `uid=N(NAME)`, and the owner/group columns of `ls -l` lines (`<user>`); `root` and `git` are kept.
"""

from __future__ import annotations

import ipaddress
import re
from collections import Counter
from typing import Iterable

#: Public hosts never replaced (besides the recipe's download hosts): package indexes and mirrors.
KEEP_HOSTS = ("pypi.org", "files.pythonhosted.org", "download.pytorch.org", "pypi.python.org",
              "repo.huaweicloud.com", "mirrors.huaweicloud.com", "hf-mirror.com", "hub.docker.com",
              "docker.io", "registry-1.docker.io", "quay.io", "ghcr.io", "raw.githubusercontent.com",
              "objects.githubusercontent.com", "codeload.github.com")

#: User names never replaced.
KEEP_USERS = frozenset({"root", "git", "nobody", "user", "<user>"})

#: Words after "user " that are not user names (our own report says "user override", "user config").
_NOT_NAMES = frozenset("""a an the and or is was has had in of on to for from with by as at not no
config configuration override recipe name names id ids space mode data home group groups namespace site
packages agent interface input error cannot can does did must should may will which that this who wants
needs permission permissions land level process processes time account accounts session sessions
""".split())

_SECRET_KV = re.compile(
    r"(?i)\b([A-Z0-9_]*(?:TOKEN|PASSWORD|PASSWD|SECRET|API_KEY|ACCESS_KEY|PRIVATE_KEY)[A-Z0-9_]*)(\s*[=:]\s*)"
    r"(\"[^\"]*\"|'[^']*'|\S+)")
_SECRET_FLAG = re.compile(r"(?i)(--(?:token|password|passwd|api[-_]key|secret)[= ])(\S+)")
_HF_TOKEN = re.compile(r"\bhf_[A-Za-z0-9]{16,}\b")
_BEARER = re.compile(r"(?i)(Authorization:\s*(?:Bearer|Basic|token)\s+)\S+")
_URL_CRED = re.compile(r"(://)[^/\s:@]+:[^/\s@]+@")

_HOME = re.compile(r"(/home/|/Users/|\\Users\\)([^/\\\s<>]+)")
_MAC = re.compile(r"(?<![\w:.-])[0-9A-Fa-f]{2}([:-])[0-9A-Fa-f]{2}(?:\1[0-9A-Fa-f]{2}){4}(?![\w:-])")
_IPV4 = re.compile(r"(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?!\.?\w)")
_IPV6 = re.compile(r"(?<![\w:.])(?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4}(?:%[\w.-]+)?(?![\w:])")
_USER_AT_HOST = re.compile(r"(?<![\w.+%<-])([A-Za-z_][\w.-]{0,31})@([A-Za-z0-9][A-Za-z0-9.-]*[A-Za-z0-9]|[A-Za-z0-9])")
_URL_HOST = re.compile(r"(?i)\b((?:https?|socks5h?|socks4|ftp)://)((?:[^/\s@]+@)?)([A-Za-z0-9][A-Za-z0-9.-]*)")
_PROXY_ENV = re.compile(r"(?i)\b((?:https?|ftp|all|no)_proxy\s*=\s*[\"']?)([^\s\"']+)")
_OWNED_BY = re.compile(r"(?i)\b(owned by|owner:?)\s+['\"]?([a-z_][\w.-]{0,31})")
_USER_WORD = re.compile(r"\b([Uu]ser)\s+(['\"]?)([a-z_][\w.-]{0,31})\2(?![\w/.-])")
_ID_NAME = re.compile(r"\b((?:uid|gid|groups|euid)=\d+)\(([^()\s]+)\)")
_LS_LONG = re.compile(r"(?m)^([-dlcbps][rwxsStT-]{9}[.+@]?\s+\d+\s+)(\S+)(\s+)(\S+)(\s+\d)")


#: MAC addresses that name no card (broadcast, all zeros).
_KEPT_MACS = frozenset({"ff:ff:ff:ff:ff:ff", "00:00:00:00:00:00"})


def _is_kept_ip(text: str) -> bool | None:
    """True for loopback/unspecified, False for another address, None when `text` is no address."""
    try:
        ip = ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return None
    if ip.is_loopback or ip.is_unspecified:
        return True
    if ip.version == 4 and str(ip).startswith("255."):  # a netmask (hccn.conf's netmask_0=) names nothing
        try:
            ipaddress.IPv4Network(f"0.0.0.0/{ip}")
            return True
        except ValueError:
            return False
    return False


def _host_kept(host: str, keep: tuple[str, ...]) -> bool:
    h = host.lower().rstrip(".")
    if h in ("localhost", "<host>") or _is_kept_ip(h) is not None:  # addresses: the IP pass decides
        return True
    return any(h == k or h.endswith("." + k) for k in keep)


def _normal_hosts(hosts: Iterable[str]) -> tuple[str, ...]:
    out = []
    for h in hosts:
        h = re.sub(r"^[a-z0-9+]+://", "", str(h).strip().lower()).split("/", 1)[0].split(":", 1)[0]
        if h:
            out.append(h)
    return tuple(out)


def redact_counted(text: str, names: bool = True, users: Iterable[str] = (), hosts: Iterable[str] = (),
                   keep_hosts: Iterable[str] = ()) -> tuple[str, Counter]:
    """Hide secrets (always) and, when `names`, addresses and user and host names (see the module doc).

    Args:
        text: the report (Markdown), any size.
        names: also hide IP/MAC addresses and user and host names (False = `--no-redact`).
        users: user names known to be private (the local login).
        hosts: host names known to be private (the local host name, short and full).
        keep_hosts: public hosts to leave alone (the recipe's download hosts; URLs are accepted).

    Returns:
        (redacted text, counts) with counts keyed "secret", "ip", "mac", "host", "user" (replacements).
    """
    n: Counter = Counter()

    def sub(pattern: re.Pattern, repl, s: str, kind: str) -> str:
        def counted(m: re.Match) -> str:
            out = repl(m) if callable(repl) else m.expand(repl)
            if out != m.group(0):
                n[kind] += 1
            return out
        return pattern.sub(counted, s)

    text = sub(_SECRET_KV, lambda m: f"{m.group(1)}{m.group(2)}<redacted>", text, "secret")
    text = sub(_SECRET_FLAG, lambda m: f"{m.group(1)}<redacted>", text, "secret")
    text = sub(_HF_TOKEN, lambda m: "<redacted>", text, "secret")
    text = sub(_BEARER, lambda m: f"{m.group(1)}<redacted>", text, "secret")
    text = sub(_URL_CRED, lambda m: f"{m.group(1)}<redacted>@", text, "secret")
    if not names:
        return text, n
    keep = _normal_hosts([*keep_hosts, *KEEP_HOSTS])
    private_users = {u for u in users if u and len(u) >= 2 and u not in KEEP_USERS}

    def user(name: str) -> str:
        return name if name in KEEP_USERS else "<user>"

    def host(name: str) -> str:
        return name if _host_kept(name, keep) else "<host>"

    text = sub(_HOME, lambda m: f"{m.group(1)}{user(m.group(2))}", text, "user")
    text = sub(_URL_HOST, lambda m: f"{m.group(1)}{m.group(2)}{host(m.group(3))}", text, "host")

    def proxy_value(m: re.Match) -> str:
        parts = []
        for item in m.group(2).split(","):
            bare = item.lstrip(".").split(":", 1)[0]
            if "://" in item or not bare or "/" in bare or _host_kept(bare, keep):
                parts.append(item)
            else:
                parts.append(item.replace(bare, "<host>", 1))
                n["host"] += 1
        return m.group(1) + ",".join(parts)

    text = _PROXY_ENV.sub(proxy_value, text)

    def user_at_host(m: re.Match) -> str:
        u, h = m.group(1), m.group(2)
        if re.fullmatch(r"(?i)sha\d+|v?\d[\w.]*", h):  # image@sha256:..., pkg@1.2
            return m.group(0)
        new_u, new_h = user(u), host(h)
        if new_u != u:
            n["user"] += 1
        if new_h != h:
            n["host"] += 1
        return f"{new_u}@{new_h}"

    text = _USER_AT_HOST.sub(user_at_host, text)
    for h in sorted({h for h in hosts if h and len(h) >= 2 and h != "localhost"}, key=len, reverse=True):
        text = sub(re.compile(rf"(?<![\w.-]){re.escape(h)}(?![\w-])"), lambda m: "<host>", text, "host")
    text = sub(_MAC, lambda m: m.group(0) if m.group(0).lower().replace("-", ":") in _KEPT_MACS else "<mac>",
               text, "mac")
    text = sub(_IPV4, lambda m: m.group(0) if _is_kept_ip(m.group(0)) in (True, None) else "<ip>", text, "ip")
    text = sub(_IPV6, lambda m: m.group(0) if _is_kept_ip(m.group(0)) in (True, None) else "<ip>", text, "ip")
    text = sub(_OWNED_BY, lambda m: m.group(0)[: m.start(2) - m.start(0)] + user(m.group(2)), text, "user")
    text = sub(_USER_WORD, lambda m: m.group(0) if m.group(3).lower() in _NOT_NAMES
               else f"{m.group(1)} {m.group(2)}{user(m.group(3))}{m.group(2)}", text, "user")
    text = sub(_ID_NAME, lambda m: f"{m.group(1)}({user(m.group(2))})", text, "user")

    def ls_long(m: re.Match) -> str:
        return f"{m.group(1)}{user(m.group(2))}{m.group(3)}{user(m.group(4))}{m.group(5)}"

    text = sub(_LS_LONG, ls_long, text, "user")
    for u in sorted(private_users, key=len, reverse=True):
        text = sub(re.compile(rf"(?<![\w.-]){re.escape(u)}(?![\w-])"), lambda m: "<user>", text, "user")
    return text, n


_KINDS = (("secret", "secret", "secrets"), ("ip", "IP address", "IP addresses"),
          ("mac", "MAC address", "MAC addresses"), ("host", "host name", "host names"),
          ("user", "user name", "user names"))


def summary(counts: Counter, names: bool) -> str:
    """The one line saying exactly what was replaced, e.g. "redacted: 2 secrets, 3 IP addresses, ...".

    With `names` False (`--no-redact`) it says the addresses and names were kept.
    """
    shown = [(k, one, many) for k, one, many in _KINDS if names or k == "secret"]
    parts = [f"{counts.get(k, 0)} {one if counts.get(k, 0) == 1 else many}" for k, one, many in shown]
    line = "redacted: " + ", ".join(parts)
    if not names:
        line += "; IP/MAC addresses, host and user names kept (--no-redact)"
    return line
