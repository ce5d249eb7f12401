# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0
# Sourced by packaging/test-chroot and packaging/e2e.

# The first Debian mirror (not debian-security) in the apt sources.
detect_mirror() {
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
		 /etc/apt/sources.list.d/*.sources; do
		[ -e "$f" ] || continue
		case $f in
		*.sources) sed -n 's/^URIs:[[:space:]]*//p' "$f" | tr ' ' '\n' ;;
		*) sed -n 's/^deb[[:space:]]\+\(\[[^]]*\][[:space:]]\+\)\?\([^[:space:]]*\).*/\2/p' "$f" ;;
		esac
	done | grep -m1 '/debian/\?$' || echo http://deb.debian.org/debian
}
