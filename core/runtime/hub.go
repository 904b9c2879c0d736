package runtime

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/diag"
	"github.com/openjibo/jibod/core/hub"
	"github.com/openjibo/jibod/core/hub/token"
	"github.com/openjibo/jibod/core/hub/wire"
	"github.com/openjibo/jibod/core/runtime/config"
	"github.com/openjibo/jibod/core/skill"
)

// HubConfig is how the robot reaches its hub; URL "" means no hub.
type HubConfig struct {
	URL, TokenFile, CAFile string
	Encoding               wire.Encoding
	Link                   hub.LinkMode
	// TriggerOnUp, if set, sends the hub a TRIGGER of this source the
	// first time the link comes up (a robot that was just switched on
	// greets whoever switched it on).
	TriggerOnUp string
}

// HubConfigOf parses h, the hub options as the command line and the
// configuration give them: the frame encoding, the link mode, a TRIGGER
// source (NEW_ARRIVAL or SURPRISE), and a URL the client accepts, which
// the CA file, the trigger and a token file other than envToken (the
// environment's, which any run may carry) need. Errors name the flag.
func HubConfigOf(h config.Hub, envToken string) (HubConfig, error) {
	c := HubConfig{URL: h.URL, TokenFile: h.TokenFile, CAFile: h.CAFile, TriggerOnUp: h.TriggerOnUp}
	var err error
	if c.Encoding, err = wire.ParseEncoding(h.Encoding); err != nil {
		return c, fmt.Errorf("--hub-encoding: %w", err)
	}
	if c.Link, err = hub.ParseLinkMode(h.Link); err != nil {
		return c, fmt.Errorf("--hub-link: %w", err)
	}
	if t := c.TriggerOnUp; t != "" && t != "NEW_ARRIVAL" && t != "SURPRISE" {
		return c, fmt.Errorf("--hub-trigger-on-up %q: want NEW_ARRIVAL or SURPRISE", t)
	}
	if c.URL == "" {
		if c.TokenFile != "" && c.TokenFile != envToken || c.CAFile != "" || c.TriggerOnUp != "" {
			return c, errors.New("--hub-token, --hub-ca and --hub-trigger-on-up need --hub")
		}
		return c, nil
	}
	if _, err := hub.NewClient(hub.Config{URL: c.URL}); err != nil {
		return c, fmt.Errorf("--hub: %w", err)
	}
	return c, nil
}

// TokenSource re-reads the token file for every connection, so a renewed
// token is picked up without a restart; nil without a token file.
func (c HubConfig) TokenSource() func() (string, error) {
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
	cfg    HubConfig
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
func newHubLink(r *Robot, cfg HubConfig, stateDir string, lang string, now func() time.Time, log *slog.Logger) (*hubLink, error) {
	if cfg.URL == "" {
		return nil, nil
	}
	h := &hubLink{log: log, cfg: cfg, firstDown: make(chan struct{})}
	var triggered bool
	client, err := hub.NewClient(hub.Config{URL: cfg.URL, Token: cfg.TokenSource(), CAFile: cfg.CAFile,
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
				h.trigger(r.bus, cfg.TriggerOnUp)
			}
		}})
	if err != nil {
		return nil, err
	}
	if stateDir == NoState {
		stateDir = ""
	}
	// The host's conversation store: the remote fallback names the active
	// cloud skill's {id, session} in CONTEXT from it (jibo.md §1.3).
	remote, err := hub.NewRemote(hub.RemoteConfig{Client: client, Host: r.host, Bus: r.bus, StateDir: stateDir,
		Release: r.version, Lang: lang, Runtime: RuntimeContext(r.body.State, now, r.people.Loop), Now: now,
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
func (h *hubLink) trigger(b *bus.Bus, source string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := b.Publish(ctx, bus.NewMessage(hub.TopicTrigger, map[string]any{"source": source})); err != nil {
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

// hubView is the hub link as the shell sees it: the client's state with
// the link's configuration, and the remote skills' names from the host.
type hubView struct {
	link *hubLink
	host *skill.Host
}

// Link is the link's state now.
func (v hubView) Link() diag.HubLink {
	st := v.link.client.State()
	mode := v.link.cfg.Link
	if mode == "" {
		mode = hub.Persistent // the client's default
	}
	l := diag.HubLink{Status: string(st.Status), Summary: st.String(), URL: st.URL, Mode: string(mode),
		Encoding: st.Encoding, Since: st.Since, Retry: st.Retry}
	if st.Err != nil {
		l.Error = st.Err.Error()
	}
	return l
}

// Skills are the remote skills of the catalog the robot holds, by id.
func (v hubView) Skills() []diag.HubSkill {
	ids := v.link.remote.Skills()
	names := map[string]string{}
	if v.host != nil {
		for _, m := range v.host.Skills() {
			names[m.ID] = m.Name
		}
	}
	out := make([]diag.HubSkill, 0, len(ids))
	for _, id := range ids {
		out = append(out, diag.HubSkill{ID: id, Name: names[id]})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
