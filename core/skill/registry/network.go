package registry

import (
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
)

// validateNetworkHosts checks network_hosts and its tie to the network
// permission: each needs the other, so a manifest never names hosts it
// cannot reach nor reaches hosts it does not name.
func (m *Manifest) validateNetworkHosts() error {
	switch {
	case len(m.NetworkHosts) > MaxNetworkHosts:
		return fieldErr("network_hosts", "%d hosts, limit %d", len(m.NetworkHosts), MaxNetworkHosts)
	case len(m.NetworkHosts) > 0 && !m.Allows(PermNetwork):
		return fieldErr("network_hosts", "given without the %q permission", PermNetwork)
	case len(m.NetworkHosts) == 0 && m.Allows(PermNetwork):
		return fieldErr("network_hosts", "missing: the %q permission needs the hosts the skill may fetch from", PermNetwork)
	}
	for i, h := range m.NetworkHosts {
		path := fmt.Sprintf("network_hosts[%d]", i)
		if _, _, err := SplitNetworkHost(h); err != nil {
			return fieldErr(path, "%v", err)
		}
		if j := slices.Index(m.NetworkHosts, h); j < i {
			return fieldErr(path, "%q is listed twice (also at [%d])", h, j)
		}
	}
	return nil
}

// SplitNetworkHost checks one network_hosts entry, "host" or
// "host:port", and returns its host and port (0 when none is given, which
// means the scheme's default port). The host is a lower-case DNS name of
// [a-z0-9-] labels, or an IPv4 address; no wildcards, no user info.
func SplitNetworkHost(entry string) (host string, port int, err error) {
	if entry == "" || len(entry) > MaxNetworkHostLen {
		return "", 0, fmt.Errorf("%q: want host or host:port of 1..%d bytes", entry, MaxNetworkHostLen)
	}
	host = entry
	if h, p, ok := strings.Cut(entry, ":"); ok {
		n, perr := strconv.Atoi(p)
		if perr != nil || n < 1 || n > 65535 || p[0] == '0' {
			return "", 0, fmt.Errorf("%q: port %q is not 1..65535", entry, p)
		}
		host, port = h, n
	}
	if ip := net.ParseIP(host); ip != nil {
		if ip.To4() == nil || strings.Contains(host, ":") {
			return "", 0, fmt.Errorf("%q: only IPv4 addresses and DNS names are accepted", entry)
		}
		return host, port, nil
	}
	if len(host) > 253 {
		return "", 0, fmt.Errorf("%q: host name over 253 bytes", entry)
	}
	labels := strings.Split(host, ".")
	for _, l := range labels {
		if len(l) == 0 || len(l) > 63 || !isHostLabel(l) {
			return "", 0, fmt.Errorf("%q: host %q is not a lower-case DNS name (labels of [a-z0-9-], 1..63 bytes, no leading or trailing '-')", entry, host)
		}
	}
	if strings.Trim(labels[len(labels)-1], "0123456789") == "" {
		return "", 0, fmt.Errorf("%q: host %q is neither an IPv4 address nor a DNS name", entry, host)
	}
	return host, port, nil
}

func isHostLabel(l string) bool {
	if l[0] == '-' || l[len(l)-1] == '-' {
		return false
	}
	for i := 0; i < len(l); i++ {
		c := l[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}
