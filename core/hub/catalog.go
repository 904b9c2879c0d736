package hub

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"

	"github.com/openjibo/jibod/core/hub/wire"
)

// CatalogFileName is the cached catalog in the robot's state folder.
const CatalogFileName = "hub-catalog.json"

// Catalog fetches the hub's skill catalog (GET /v1/skills with the robot's
// token), validated, with its encoding.
func (c *Client) Catalog(ctx context.Context) (*wire.Catalog, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.ConnectTimeout+c.cfg.ReplyTimeout)
	defer cancel()
	u := c.httpURL(wire.CatalogPath)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("fetching the hub's catalog: %w", err)
	}
	if c.cfg.Token != nil {
		tok, err := c.cfg.Token()
		if err != nil {
			return nil, nil, fmt.Errorf("fetching the hub's catalog: reading the robot's token: %w", err)
		}
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.httpc.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("fetching the hub's catalog: %w: %w", ErrUnavailable, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, nil, fmt.Errorf("fetching the hub's catalog: %w", refused(u, resp, fmt.Errorf("status %d", resp.StatusCode)))
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, wire.MaxCatalogSize+1))
	if err != nil {
		return nil, nil, fmt.Errorf("fetching the hub's catalog: %w", err)
	}
	cat, err := wire.DecodeCatalog(b)
	if err != nil {
		return nil, nil, fmt.Errorf("hub at %s: %w", c.URL(), err)
	}
	enc, err := cat.Encode()
	if err != nil {
		return nil, nil, fmt.Errorf("hub at %s: %w", c.URL(), err)
	}
	return cat, enc, nil
}

// loadCatalog reads the cached catalog; none cached is (nil, nil).
func loadCatalog(dir string) (*wire.Catalog, []byte, error) {
	if dir == "" {
		return nil, nil, nil
	}
	path := filepath.Join(dir, CatalogFileName)
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("reading the cached hub catalog: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, wire.MaxCatalogSize+1))
	if err != nil {
		return nil, nil, fmt.Errorf("reading the cached hub catalog %s: %w", path, err)
	}
	cat, err := wire.DecodeCatalog(b)
	if err != nil {
		return nil, nil, fmt.Errorf("cached hub catalog %s: %w", path, err)
	}
	return cat, bytes.TrimSpace(b), nil
}

// saveCatalog writes the catalog atomically: a crash leaves the old file
// or the new one, never half of one.
func saveCatalog(dir string, b []byte) error {
	if dir == "" {
		return nil
	}
	tmp, err := os.CreateTemp(dir, CatalogFileName+".*.tmp")
	if err != nil {
		return fmt.Errorf("caching the hub catalog: %w", err)
	}
	defer os.Remove(tmp.Name()) // gone after the rename; cleans up a failure
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("caching the hub catalog: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("caching the hub catalog: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("caching the hub catalog: %w", err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, CatalogFileName)); err != nil {
		return fmt.Errorf("caching the hub catalog: %w", err)
	}
	return nil
}
