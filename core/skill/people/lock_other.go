//go:build !unix

package people

// lockFile is a no-op where there is no flock: changes from two processes
// at once may lose one (the store's mutex still orders one process's).
func lockFile(string) (unlock func(), err error) { return func() {}, nil }
