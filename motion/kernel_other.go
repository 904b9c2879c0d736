//go:build !linux

package motion

func bootLog(string) (string, error) { return "", errNoBootLog }
