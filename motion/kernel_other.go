//go:build !linux

package motion

import "os"

func readSystemFile(name string) ([]byte, error) { return os.ReadFile(name) }

func bootLog(string) (string, error) { return "", errNoBootLog }
