//go:build !linux

package motion

// threadAccount is not wired where there is no Linux: the kernel's
// per-thread accounts are not read.
type threadAccount struct{}

func (otherRT) openAccount() *threadAccount { return nil }

func (*threadAccount) read(*threadTimes) bool { return false }

func (*threadAccount) close() {}
