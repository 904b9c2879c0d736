package wasm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/internal/strictjson"
	"github.com/openjibo/jibod/sdk/wasmskill"
)

// Fetch limits.
const (
	// MaxFetchRequestBytes bounds an http_fetch request as the module
	// encodes it (body included, base64).
	MaxFetchRequestBytes = 96 << 10
	// MaxFetchBodyBytes bounds a fetched response's body.
	MaxFetchBodyBytes = 256 << 10
	// MaxFetchHeaders bounds the headers of a request, and those of a
	// response handed back.
	MaxFetchHeaders = 32
	// MaxRedirects bounds the redirects a fetch follows, each to a listed
	// host.
	MaxRedirects = 3
)

// errUnlisted marks a redirect to a host the manifest does not list.
var errUnlisted = errors.New("host not in network_hosts")

func newHTTPClient(rt http.RoundTripper) *http.Client {
	return &http.Client{Transport: rt, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) > MaxRedirects {
			return fmt.Errorf("more than %d redirects", MaxRedirects)
		}
		hosts, _ := req.Context().Value(hostsKey{}).([]string)
		if !hostListed(hosts, req.URL) {
			return fmt.Errorf("redirect to %s: %w", req.URL.Host, errUnlisted)
		}
		return nil
	}}
}

type hostsKey struct{}

// hostListed reports whether u's host and port are in hosts
// (registry.Manifest.NetworkHosts): an entry without a port allows the
// scheme's default port only.
func hostListed(hosts []string, u *url.URL) bool {
	host := strings.ToLower(u.Hostname())
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	for _, entry := range hosts {
		h, p, err := registry.SplitNetworkHost(entry)
		if err != nil || h != host {
			continue
		}
		want := strconv.Itoa(p)
		if p == 0 {
			want = map[string]string{"http": "80", "https": "443"}[u.Scheme]
		}
		if want == port {
			return true
		}
	}
	return false
}

// fetchRequest and fetchResponse are http_fetch's JSON, as the SDK's
// FetchRequest and FetchResponse encode them.
type fetchRequest struct {
	Method  string            `json:"method"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
	Body    []byte            `json:"body"`
}

type fetchResponse struct {
	Status  int               `json:"status"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    []byte            `json:"body,omitempty"`
}

var fetchMethods = map[string]bool{"GET": true, "HEAD": true, "POST": true, "PUT": true, "PATCH": true, "DELETE": true}

// forbiddenHeaders are set by the HTTP client, never by a module.
var forbiddenHeaders = map[string]bool{"Host": true, "Content-Length": true, "Transfer-Encoding": true,
	"Connection": true, "Upgrade": true, "Te": true, "Trailer": true, "Proxy-Authorization": true}

// fetch makes the module's HTTP request, returning the result length or a
// code. A URL on an unlisted host stops the call (denied); everything the
// network does is an error code.
func (s *Skill) fetch(ctx context.Context, cs *callState, raw []byte) int32 {
	const fn = "http_fetch"
	var fr fetchRequest
	if err := strictjson.Unmarshal(raw, &fr); err != nil {
		return cs.fail(fn, wasmskill.CodeInvalid, "reading the request: "+err.Error())
	}
	if fr.Method == "" {
		fr.Method = http.MethodGet
	}
	if !fetchMethods[fr.Method] {
		return cs.fail(fn, wasmskill.CodeInvalid, fmt.Sprintf("method %q: want GET, HEAD, POST, PUT, PATCH or DELETE", fr.Method))
	}
	u, err := url.Parse(fr.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return cs.fail(fn, wasmskill.CodeInvalid, fmt.Sprintf("url %q: want an absolute http or https URL without user info", fr.URL))
	}
	if !hostListed(s.m.NetworkHosts, u) {
		cs.deny(fn, registry.PermNetwork, fmt.Sprintf("fetch of %s://%s: the host is not in network_hosts (%s)",
			u.Scheme, u.Host, strings.Join(s.m.NetworkHosts, ", ")))
	}
	if len(fr.Headers) > MaxFetchHeaders {
		return cs.fail(fn, wasmskill.CodeInvalid, fmt.Sprintf("%d headers, limit %d", len(fr.Headers), MaxFetchHeaders))
	}
	if s.e.cfg.Offline != nil && s.e.cfg.Offline() {
		s.log.Info("host call refused: offline", "fn", fn, "url", u.Redacted())
		return cs.fail(fn, wasmskill.CodeOffline, "the robot is offline")
	}
	if cs.fetches++; cs.fetches > MaxFetches {
		return cs.fail(fn, wasmskill.CodeLimit, fmt.Sprintf("over the %d fetches allowed per request", MaxFetches))
	}
	req, err := http.NewRequestWithContext(context.WithValue(ctx, hostsKey{}, s.m.NetworkHosts), fr.Method, u.String(), bytes.NewReader(fr.Body))
	if err != nil {
		return cs.fail(fn, wasmskill.CodeInvalid, err.Error())
	}
	for k, v := range fr.Headers {
		ck := http.CanonicalHeaderKey(k)
		if forbiddenHeaders[ck] || strings.ContainsAny(k+v, "\r\n") {
			return cs.fail(fn, wasmskill.CodeInvalid, fmt.Sprintf("header %q may not be set", k))
		}
		req.Header.Set(ck, v)
	}
	resp, err := s.e.http.Do(req)
	if err != nil {
		s.log.Info("host call", "fn", fn, "url", u.Redacted(), "err", err)
		return cs.fail(fn, wasmskill.CodeNetwork, err.Error())
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxFetchBodyBytes+1))
	if err != nil {
		return cs.fail(fn, wasmskill.CodeNetwork, "reading the body: "+err.Error())
	}
	if len(body) > MaxFetchBodyBytes {
		return cs.fail(fn, wasmskill.CodeTooLarge, fmt.Sprintf("the body is over %d bytes", MaxFetchBodyBytes))
	}
	out := fetchResponse{Status: resp.StatusCode, Body: body, Headers: map[string]string{}}
	for k, vs := range resp.Header {
		if len(out.Headers) < MaxFetchHeaders && len(vs) > 0 {
			out.Headers[k] = vs[0]
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return cs.fail(fn, wasmskill.CodeInternal, err.Error())
	}
	s.log.Info("host call", "fn", fn, "method", fr.Method, "url", u.Redacted(), "status", resp.StatusCode, "bytes", len(body))
	return cs.ok(b)
}
