package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/hub"
	"github.com/openjibo/jibod/core/hub/token"
	"github.com/openjibo/jibod/core/hub/wire"
)

// Environment variables giving the hub when the flags do not.
const (
	hubURLEnv   = "JIBOD_HUB_URL"
	hubTokenEnv = "JIBOD_HUB_TOKEN"
)

// hubConfig is how the robot reaches its hub; URL "" means no hub.
type hubConfig struct {
	URL, TokenFile, CAFile string
	Encoding               wire.Encoding
	Link                   hub.LinkMode
	// TriggerOnUp, if set, sends the hub a TRIGGER of this source the
	// first time the link comes up (a robot that was just switched on
	// greets whoever switched it on).
	TriggerOnUp string
}

// hubFlags are the hub options of a command line.
type hubFlags struct {
	url, token, ca, encoding, link, triggerOnUp *string
}

func addHubFlags(fs *flag.FlagSet, withTrigger bool) *hubFlags {
	f := &hubFlags{
		url:      fs.String("hub", os.Getenv(hubURLEnv), "the hub's base URL, ws:// or wss:// (default $"+hubURLEnv+"; none: every skill is local)"),
		token:    fs.String("hub-token", os.Getenv(hubTokenEnv), "file holding the robot's hub token (default $"+hubTokenEnv+")"),
		ca:       fs.String("hub-ca", "", "PEM file of an extra CA to trust for wss://"),
		encoding: fs.String("hub-encoding", "cbor", "frame encoding to prefer: cbor or json (the hub chooses)"),
		link:     fs.String("hub-link", string(hub.Persistent), "persistent (one multiplexed websocket) or per-turn (one per transaction, like real robots)"),
	}
	if withTrigger {
		f.triggerOnUp = fs.String("hub-trigger-on-up", "", "send the hub this TRIGGER (NEW_ARRIVAL or SURPRISE) the first time the link comes up")
	}
	return f
}

// config checks the flags.
func (f *hubFlags) config() (hubConfig, error) {
	c := hubConfig{URL: *f.url, TokenFile: *f.token, CAFile: *f.ca}
	enc, err := wire.ParseEncoding(*f.encoding)
	if err != nil {
		return c, usageError{fmt.Sprintf("--hub-encoding: %v", err)}
	}
	c.Encoding = enc
	if c.Link, err = hub.ParseLinkMode(*f.link); err != nil {
		return c, usageError{fmt.Sprintf("--hub-link: %v", err)}
	}
	if f.triggerOnUp != nil {
		c.TriggerOnUp = *f.triggerOnUp
		if c.TriggerOnUp != "" && c.TriggerOnUp != "NEW_ARRIVAL" && c.TriggerOnUp != "SURPRISE" {
			return c, usageError{fmt.Sprintf("--hub-trigger-on-up %q: want NEW_ARRIVAL or SURPRISE", c.TriggerOnUp)}
		}
	}
	if c.URL == "" {
		if c.TokenFile != "" && *f.token != os.Getenv(hubTokenEnv) || c.CAFile != "" || c.TriggerOnUp != "" {
			return c, usageError{"--hub-token, --hub-ca and --hub-trigger-on-up need --hub"}
		}
		return c, nil
	}
	if _, err := hub.NewClient(hub.Config{URL: c.URL}); err != nil {
		return c, usageError{fmt.Sprintf("--hub: %v", err)}
	}
	return c, nil
}

// tokenSource re-reads the token file for every connection, so a renewed
// token is picked up without a restart.
func (c hubConfig) tokenSource() func() (string, error) {
	if c.TokenFile == "" {
		return nil
	}
	return func() (string, error) { return token.ReadTokenFile(c.TokenFile) }
}

// hubLink is the robot's hub side: the link and the remote skills.
type hubLink struct {
	client *hub.Client
	remote *hub.Remote
	log    *slog.Logger
	cfg    hubConfig
	// firstDown is closed the first time the link goes down.
	firstDown     chan struct{}
	firstDownOnce sync.Once
}

// startupWait bounds how long start waits for the first connection and
// catalog: long enough for a hub on a slow network, short enough that a
// robot never seems stuck at power-on.
const startupWait = hub.DefaultConnectTimeout + 2*time.Second

// newHubLink builds the link and adds the cached catalog's proxies to the
// host (registered with the local skills). Nothing is opened until start.
// The link's state drives the Wasm skills' offline switch unless offline
// was forced.
func newHubLink(r *robot, cfg hubConfig, stateDir string, lang string, now func() time.Time, log *slog.Logger) (*hubLink, error) {
	if cfg.URL == "" {
		return nil, nil
	}
	h := &hubLink{log: log, cfg: cfg, firstDown: make(chan struct{})}
	var triggered bool
	client, err := hub.NewClient(hub.Config{URL: cfg.URL, Token: cfg.tokenSource(), CAFile: cfg.CAFile,
		Encoding: cfg.Encoding, Link: cfg.Link, Bus: r.bus, Logger: log,
		OnState: func(st hub.LinkState) {
			r.wasm.SetOffline(st.Status != hub.Up)
			if h.remote != nil {
				h.remote.LinkChanged(st)
			}
			if st.Status == hub.Down {
				h.firstDownOnce.Do(func() { close(h.firstDown) })
			}
			if st.Status == hub.Up && cfg.TriggerOnUp != "" && !triggered {
				triggered = true
				h.trigger(r, cfg.TriggerOnUp)
			}
		}})
	if err != nil {
		return nil, err
	}
	if stateDir == noState {
		stateDir = ""
	}
	// The host's conversation store: the remote fallback names the active
	// cloud skill's {id, session} in CONTEXT from it (jibo.md §1.3).
	remote, err := hub.NewRemote(hub.RemoteConfig{Client: client, Host: r.host, Bus: r.bus, StateDir: stateDir,
		Release: version, Lang: lang, Runtime: runtimeContext(r.parts.state, now, r.loop.Loop), Now: now,
		Conversations: r.conversations, Logger: log})
	if err != nil {
		return nil, err
	}
	h.client, h.remote = client, remote
	r.wasm.SetOffline(true) // until the link is up
	if err := remote.LoadCache(context.Background()); err != nil {
		log.Warn("cached hub catalog not used", "err", err)
	}
	return h, nil
}

// trigger asks for a TRIGGER through the bus, as any part of the robot
// may; the remote side runs it after fetching the catalog.
func (h *hubLink) trigger(r *robot, source string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := r.bus.Publish(ctx, bus.NewMessage(hub.TopicTrigger, map[string]any{"source": source})); err != nil {
		h.log.Warn("hub trigger not requested", "err", err)
	}
}

// start opens the link and starts the remote side, then waits (at most
// startupWait) until the hub's catalog is fetched or the hub is found
// unreachable, so what is said first already knows the cloud skills.
func (h *hubLink) start(ctx context.Context) error {
	if h == nil {
		return nil
	}
	if err := h.remote.Start(ctx); err != nil {
		return err
	}
	if err := h.client.Start(ctx); err != nil {
		return err
	}
	t := time.NewTimer(startupWait)
	defer t.Stop()
	select {
	case <-h.remote.Fetched():
	case <-h.firstDown:
	case <-t.C:
		h.log.Warn("hub link still not settled; starting without waiting longer", "waited", startupWait)
	case <-ctx.Done():
	}
	return nil
}

// Close stops the link (failing open transactions) and the remote side.
func (h *hubLink) Close(ctx context.Context) error {
	if h == nil {
		return nil
	}
	return errors.Join(h.client.Close(ctx), h.remote.Close(ctx))
}
