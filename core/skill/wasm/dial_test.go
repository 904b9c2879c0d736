package wasm

import (
	"context"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestIsPublic(t *testing.T) {
	for _, tc := range []struct {
		addr string
		want bool
	}{
		{"93.184.215.14", true},
		{"2606:2800:21f:cb07:6820:80da:af6b:8b2c", true},
		{"127.0.0.1", false},
		{"::1", false},
		{"10.1.2.3", false},
		{"172.16.0.1", false},
		{"192.168.1.20", false},
		{"169.254.169.254", false}, // cloud metadata
		{"100.64.0.1", false},      // carrier-grade NAT
		{"0.0.0.0", false},
		{"::", false},
		{"fd00::1", false},
		{"fe80::1", false},
		{"224.0.0.1", false},
		{"198.51.100.7", false},
		{"::ffff:127.0.0.1", false}, // IPv4-mapped loopback
		{"::ffff:8.8.8.8", true},
		{"64:ff9b::a00:1", false}, // NAT64 of 10.0.0.1
	} {
		t.Run(tc.addr, func(t *testing.T) {
			assert.Equal(t, tc.want, IsPublic(netip.MustParseAddr(tc.addr)))
		})
	}
}

func TestPublicDialerRefusesLoopback(t *testing.T) {
	_, err := PublicDialer().DialContext(context.Background(), "tcp", "127.0.0.1:9")
	require.ErrorIs(t, err, ErrNotPublic)
	assert.Contains(t, err.Error(), "127.0.0.1:9")
}
