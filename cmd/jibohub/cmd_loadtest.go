package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/openjibo/jibod/core/hub/token"
	"github.com/openjibo/jibod/core/hub/wire"
	"github.com/openjibo/jibod/internal/hubserver"
	"github.com/openjibo/jibod/internal/hubserver/loadtest"
)

const loadtestUsage = `Usage: jibohub loadtest [flags]

Simulated robots, each with its own persistent websocket, run CLIENT_NLU
turns (LISTEN + CONTEXT + CLIENT_NLU for --intent, then every hub message up
to the final one) back to back against a hub, for --duration and/or --turns
per robot, back to back or one every --interval. Prints turns per second and round-trip percentiles (LISTEN sent →
final message read). Without --url it starts a hub with the shipped skills
in this process on loopback. Exit status 1 if a robot failed to connect or a
turn failed.

Flags:
`

// runLoadtest is `jibohub loadtest`: it returns the exit code.
func runLoadtest(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("loadtest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, loadtestUsage); fs.PrintDefaults() }
	hubURL := fs.String("url", "", "hub listen endpoint, ws://host:port/v1/listen (empty: an in-process hub on loopback)")
	robots := fs.Int("robots", 100, "simulated robots, each with its own websocket")
	duration := fs.Duration("duration", 10*time.Second, "measured phase (0: until --turns)")
	turns := fs.Int("turns", 0, "turns per robot (0: until --duration)")
	interval := fs.Duration("interval", 0, "pace: each robot starts a turn every INTERVAL (0: back to back, which measures saturation)")
	encoding := fs.String("encoding", "cbor", "what robots offer: cbor (falls back to json) or json")
	intentName := fs.String("intent", loadtest.DefaultIntent, "CLIENT_NLU intent of every turn")
	tok := fs.String("token", "", "bearer token every robot sends")
	keyFile := fs.String("key", "", "token signing key: robots get a token signed with it (and an in-process hub verifies it)")
	caFile := fs.String("ca", "", "PEM CA bundle to trust for wss://")
	dials := fs.Int("connect-concurrency", loadtest.DefaultConnectConcurrency, "dials in flight while robots connect")
	turnTimeout := fs.Duration("turn-timeout", loadtest.DefaultTurnTimeout, "bound on one turn")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of this process (robots and any in-process hub) to FILE")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(stderr, "jibohub loadtest: "+format+"\n", a...)
		return code
	}
	if fs.NArg() > 0 {
		return fail(2, "unexpected argument %q", fs.Arg(0))
	}
	enc, err := wire.ParseEncoding(*encoding)
	if err != nil {
		return fail(2, "--encoding: %v", err)
	}
	if *tok != "" && *keyFile != "" {
		return fail(2, "give --token or --key, not both")
	}
	cfg := loadtest.Config{URL: *hubURL, Token: *tok, Encoding: enc, Robots: *robots, Duration: *duration,
		MaxTurns: *turns, Interval: *interval, Intent: *intentName, ConnectConcurrency: *dials, TurnTimeout: *turnTimeout}
	if *caFile != "" {
		pem, err := os.ReadFile(*caFile)
		if err != nil {
			return fail(1, "--ca: %v", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return fail(1, "--ca %s: no PEM certificates", *caFile)
		}
		cfg.TLS = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	var verifier hubserver.Verifier
	if *keyFile != "" {
		key, err := token.ReadKeyFile(*keyFile)
		if err != nil {
			return fail(1, "%v", err)
		}
		iss, err := token.NewIssuer(key, nil)
		if err != nil {
			return fail(1, "%v", err)
		}
		ttl := *duration + time.Hour
		if cfg.Token, err = iss.Issue(token.Claims{ID: "loadtest", FriendlyID: "loadtest-robot"}, ttl); err != nil {
			return fail(1, "%v", err)
		}
		verifier = iss
	}
	// Each robot needs a descriptor, twice with an in-process hub. Go
	// raises the soft limit to the hard one at start; say so if that is
	// still too few rather than fail obscurely mid-ramp.
	need := uint64(*robots) + 64
	if *hubURL == "" {
		need += uint64(*robots)
	}
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err == nil && lim.Cur < need {
		fmt.Fprintf(stderr, "jibohub loadtest: warning: open-file limit %d is below the %d descriptors %d robots need; raise it (ulimit -n)\n",
			lim.Cur, need, *robots)
	}

	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return fail(1, "--cpuprofile: %v", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fail(1, "--cpuprofile: %v", err)
		}
		defer pprof.StopCPUProfile()
	}

	if cfg.URL == "" {
		url, stop, err := startLoadtestHub(verifier, *robots, stderr)
		if err != nil {
			return fail(1, "start in-process hub: %v", err)
		}
		defer stop()
		cfg.URL = url
	}
	rep, err := loadtest.Run(ctx, cfg)
	if err != nil {
		return fail(2, "%v", err)
	}
	if *asJSON {
		out := struct {
			loadtest.Report
			Offered    string `json:"offered"`
			Negotiated string `json:"negotiated"`
		}{rep, rep.Offered.String(), rep.Negotiated.String()}
		b, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			return fail(1, "%v", err)
		}
		fmt.Fprintln(stdout, string(b))
	} else if err := rep.Write(stdout); err != nil {
		return fail(1, "%v", err)
	}
	if rep.ConnectFailures > 0 || rep.ErrorCount() > 0 || rep.LinksLost > 0 {
		return 1
	}
	return 0
}

// startLoadtestHub serves a hub with the shipped skills (deterministic
// seed) on a loopback port, sized for robots, logging only errors. stop
// closes it.
func startLoadtestHub(verifier hubserver.Verifier, robots int, stderr io.Writer) (string, func(), error) {
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	// Unmetered: a simulated robot makes a turn every few milliseconds,
	// far past calls_per_minute, which is meant for people.
	hub, err := newHub("", 1, hubserver.Config{Verifier: verifier, Logger: log, Unmetered: true,
		Limits: hubserver.Limits{MaxConnections: robots + 16, Transactions: max(hubserver.DefaultTransactions, 2*robots)}})
	if err != nil {
		return "", nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: hub.Handler(), ReadHeaderTimeout: 10 * time.Second,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelError)}
	served := make(chan struct{})
	go func() { // ends when srv is shut down
		defer close(served)
		_ = srv.Serve(ln)
	}()
	stop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
		defer cancel()
		_ = hub.Close(ctx)
		_ = srv.Shutdown(ctx)
		<-served
	}
	return "ws://" + ln.Addr().String() + hubserver.PathListenV1, stop, nil
}
