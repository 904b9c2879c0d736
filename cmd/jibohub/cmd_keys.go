package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/openjibo/jibod/core/hub/token"
)

// MaxTokenTTL bounds jibohub token --ttl.
const MaxTokenTTL = 10 * 365 * 24 * time.Hour

func runKeygen(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("keygen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "file to write the key to (required; refuses to overwrite)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *out == "" {
		return usagef("keygen: --out FILE is required")
	}
	// A new key would invalidate every token signed with the old one.
	if _, err := os.Lstat(*out); err == nil {
		return fmt.Errorf("keygen: %s exists; not overwritten (the robots' tokens are signed with it)", *out)
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("keygen: %w", err)
	}
	key, err := token.GenerateKey()
	if err != nil {
		return err
	}
	if err := token.WriteKeyFile(*out, key); err != nil {
		return err
	}
	fmt.Fprintln(stdout, *out)
	return nil
}

func runToken(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("token", flag.ContinueOnError)
	fs.SetOutput(stderr)
	keyFile := fs.String("key", "", "token signing key file (required)")
	robot := fs.String("robot", "", "robot id (friendlyId; required)")
	account := fs.String("account", "", "account id (default: the robot id)")
	ttl := fs.Duration("ttl", 720*time.Hour, "how long the token is valid")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *keyFile == "" || *robot == "" {
		return usagef("token: --key FILE and --robot ID are required")
	}
	if *ttl <= 0 || *ttl > MaxTokenTTL {
		return usagef("token: --ttl %s: want 0 < ttl ≤ %s", *ttl, MaxTokenTTL)
	}
	if *account == "" {
		*account = *robot
	}
	key, err := token.ReadKeyFile(*keyFile)
	if err != nil {
		return err
	}
	iss, err := token.NewIssuer(key, nil)
	if err != nil {
		return err
	}
	tok, err := iss.Issue(token.Claims{ID: *account, FriendlyID: *robot}, *ttl)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, tok)
	return nil
}
