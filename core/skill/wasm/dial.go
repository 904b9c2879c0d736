package wasm

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"syscall"
	"time"
)

// ErrNotPublic refuses a connection to an address a skill's fetch may not
// reach: the robot's own services, its local network, and other addresses
// that are not on the public internet.
var ErrNotPublic = errors.New("not a public address")

// nonPublic are the special-purpose ranges (RFC 6890 and successors) a
// skill may not reach besides those netip classifies itself: shared
// carrier-grade NAT space, benchmarking, documentation, IPv4-mapped and
// NAT64 translations of them, and the 6to4 relay anycast.
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("192.0.2.0/24"),
	netip.MustParsePrefix("192.88.99.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("100::/64"),
	netip.MustParsePrefix("2001:db8::/32"),
	netip.MustParsePrefix("2002::/16"),
}

// IsPublic reports whether a skill's fetch may connect to addr.
func IsPublic(addr netip.Addr) bool {
	addr = addr.Unmap()
	if !addr.IsValid() || addr.IsLoopback() || addr.IsPrivate() || addr.IsUnspecified() ||
		addr.IsLinkLocalUnicast() || addr.IsLinkLocalMulticast() || addr.IsInterfaceLocalMulticast() ||
		addr.IsMulticast() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(addr) {
			return false
		}
	}
	return true
}

// PublicDialer dials public addresses only. The check runs on the address
// actually dialled, after name resolution, so a listed host whose name
// resolves (or is re-pointed) to the robot's own network is still refused.
func PublicDialer() *net.Dialer {
	return &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second,
		Control: func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("dialling %s: %w", address, err)
			}
			if !IsPublic(ap.Addr()) {
				return fmt.Errorf("dialling %s: %w", address, ErrNotPublic)
			}
			return nil
		}}
}
