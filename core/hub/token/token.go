// Package token issues and verifies the hub link's robot tokens: JWTs
// signed with HS256 whose payload is the robot's IAuthDetails (jibo.md
// §1.1: id, accessKeyId, secretAccessKey, friendlyId) plus iat and exp,
// sent as "Authorization: Bearer <jwt>" on the websocket upgrade.
//
// Policy: only HS256 is accepted (alg "none", RS256 and every other
// algorithm are refused before any key is used); every token carries id,
// iat and exp; a verifier tolerates ClockSkew of difference between its
// clock and the issuer's (a token expired less than ClockSkew ago, or
// issued up to ClockSkew in the future, still verifies), because robots'
// clocks drift and are set late after boot.
package token

import (
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode"

	"github.com/golang-jwt/jwt/v5"
)

// Limits and policy.
const (
	// MinKeySize is the smallest HMAC key accepted, in bytes.
	MinKeySize = 32
	// MaxKeySize bounds a key, in bytes.
	MaxKeySize = 1024
	// MaxTokenSize bounds a token, in bytes.
	MaxTokenSize = 8 << 10
	// MaxClaimLen bounds each string claim, in bytes.
	MaxClaimLen = 256
	// ClockSkew is the leeway between issuer and verifier clocks.
	ClockSkew = time.Minute
)

// Errors Verify and BearerToken wrap.
var (
	// ErrExpired: the token's exp is over ClockSkew in the past.
	ErrExpired = errors.New("token expired")
	// ErrInvalid: the token is forged, malformed, signed with another
	// algorithm or key, not yet valid, or misses a required claim.
	ErrInvalid = errors.New("token invalid")
	// ErrMissing: a request carries no bearer token.
	ErrMissing = errors.New("no bearer token")
)

// Claims is what a token says about its robot.
type Claims struct {
	// ID is the account id (IAuthDetails.id); required.
	ID string
	// AccessKeyID is the robot's access key id; optional.
	AccessKeyID string
	// SecretAccessKey is the robot's secret access key, as real tokens
	// carry it; optional.
	SecretAccessKey string
	// FriendlyID is the robot's name (e.g. "my-friendly-robot"); optional.
	FriendlyID string
	// IssuedAt is when the token was issued (set by Issue).
	IssuedAt time.Time
	// ExpiresAt is when it stops being valid (set by Issue).
	ExpiresAt time.Time
}

// AccountID is the account the robot belongs to: ID.
func (c Claims) AccountID() string { return c.ID }

// RobotID identifies the robot: FriendlyID, or ID when that is empty.
func (c Claims) RobotID() string {
	if c.FriendlyID != "" {
		return c.FriendlyID
	}
	return c.ID
}

// validate checks the string claims: ID required, each at most MaxClaimLen
// printable characters.
func (c Claims) validate() error {
	if c.ID == "" {
		return errors.New("claim id: required")
	}
	for _, f := range []struct{ name, v string }{
		{"id", c.ID}, {"accessKeyId", c.AccessKeyID}, {"secretAccessKey", c.SecretAccessKey}, {"friendlyId", c.FriendlyID},
	} {
		if len(f.v) > MaxClaimLen {
			return fmt.Errorf("claim %s: %d bytes, limit %d", f.name, len(f.v), MaxClaimLen)
		}
		if strings.IndexFunc(f.v, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
			return fmt.Errorf("claim %s: contains a non-printable character", f.name)
		}
	}
	return nil
}

// payload is the JWT body.
type payload struct {
	ID              string           `json:"id"`
	AccessKeyID     string           `json:"accessKeyId,omitempty"`
	SecretAccessKey string           `json:"secretAccessKey,omitempty"`
	FriendlyID      string           `json:"friendlyId,omitempty"`
	IssuedAt        *jwt.NumericDate `json:"iat"`
	ExpiresAt       *jwt.NumericDate `json:"exp"`
}

func (p *payload) GetExpirationTime() (*jwt.NumericDate, error) { return p.ExpiresAt, nil }
func (p *payload) GetIssuedAt() (*jwt.NumericDate, error)       { return p.IssuedAt, nil }
func (p *payload) GetNotBefore() (*jwt.NumericDate, error)      { return nil, nil }
func (p *payload) GetIssuer() (string, error)                   { return "", nil }
func (p *payload) GetSubject() (string, error)                  { return "", nil }
func (p *payload) GetAudience() (jwt.ClaimStrings, error)       { return nil, nil }

// Issuer signs and verifies tokens with one HMAC key.
type Issuer struct {
	key    []byte
	now    func() time.Time
	parser *jwt.Parser
}

// NewIssuer returns an Issuer for key (MinKeySize..MaxKeySize bytes); now
// is its clock (nil: time.Now).
func NewIssuer(key []byte, now func() time.Time) (*Issuer, error) {
	if len(key) < MinKeySize || len(key) > MaxKeySize {
		return nil, fmt.Errorf("token key: %d bytes, want %d..%d", len(key), MinKeySize, MaxKeySize)
	}
	if now == nil {
		now = time.Now
	}
	i := &Issuer{key: append([]byte(nil), key...), now: now}
	i.parser = jwt.NewParser(
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithLeeway(ClockSkew),
		jwt.WithTimeFunc(func() time.Time { return i.now() }),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithStrictDecoding(),
	)
	return i, nil
}

// Issue signs a token for c, valid for ttl (> 0) from now; c's IssuedAt
// and ExpiresAt are ignored.
func (i *Issuer) Issue(c Claims, ttl time.Duration) (string, error) {
	if ttl <= 0 {
		return "", fmt.Errorf("issue token: ttl %v, want > 0", ttl)
	}
	if err := c.validate(); err != nil {
		return "", fmt.Errorf("issue token: %w", err)
	}
	now := i.now()
	p := &payload{
		ID: c.ID, AccessKeyID: c.AccessKeyID, SecretAccessKey: c.SecretAccessKey, FriendlyID: c.FriendlyID,
		IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(ttl)),
	}
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, p).SignedString(i.key)
	if err != nil {
		return "", fmt.Errorf("issue token: %w", err)
	}
	return s, nil
}

// Verify checks tok's signature, algorithm and times and returns its
// claims. Errors wrap ErrExpired or ErrInvalid with the detail.
func (i *Issuer) Verify(tok string) (Claims, error) {
	if len(tok) > MaxTokenSize {
		return Claims{}, fmt.Errorf("verify token: %w: %d bytes, limit %d", ErrInvalid, len(tok), MaxTokenSize)
	}
	var p payload
	_, err := i.parser.ParseWithClaims(tok, &p, func(t *jwt.Token) (any, error) { return i.key, nil })
	switch {
	case errors.Is(err, jwt.ErrTokenExpired):
		return Claims{}, fmt.Errorf("verify token: %w: %w", ErrExpired, err)
	case err != nil:
		return Claims{}, fmt.Errorf("verify token: %w: %w", ErrInvalid, err)
	}
	if p.IssuedAt == nil || p.ExpiresAt == nil {
		return Claims{}, fmt.Errorf("verify token: %w: claims iat and exp are required", ErrInvalid)
	}
	c := Claims{ID: p.ID, AccessKeyID: p.AccessKeyID, SecretAccessKey: p.SecretAccessKey, FriendlyID: p.FriendlyID,
		IssuedAt: p.IssuedAt.Time, ExpiresAt: p.ExpiresAt.Time}
	if err := c.validate(); err != nil {
		return Claims{}, fmt.Errorf("verify token: %w: %w", ErrInvalid, err)
	}
	return c, nil
}

// GenerateKey returns a fresh random 32-byte key.
func GenerateKey() ([]byte, error) {
	k := make([]byte, MinKeySize)
	if _, err := rand.Read(k); err != nil {
		return nil, fmt.Errorf("generate token key: %w", err)
	}
	return k, nil
}

// BearerToken returns the token of an "Authorization: Bearer <jwt>"
// header (scheme in any case). No header is ErrMissing; another scheme or
// a malformed value is ErrInvalid.
func BearerToken(h http.Header) (string, error) {
	v := h.Get("Authorization")
	if v == "" {
		return "", fmt.Errorf("authorization header: %w", ErrMissing)
	}
	scheme, tok, ok := strings.Cut(strings.TrimSpace(v), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", fmt.Errorf("authorization header: %w: want \"Bearer <token>\"", ErrInvalid)
	}
	tok = strings.TrimSpace(tok)
	switch {
	case tok == "":
		return "", fmt.Errorf("authorization header: %w: empty bearer token", ErrInvalid)
	case len(tok) > MaxTokenSize:
		return "", fmt.Errorf("authorization header: %w: token of %d bytes, limit %d", ErrInvalid, len(tok), MaxTokenSize)
	case strings.ContainsAny(tok, " \t"):
		return "", fmt.Errorf("authorization header: %w: bearer token contains whitespace", ErrInvalid)
	}
	return tok, nil
}
