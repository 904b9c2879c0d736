package paraphrase

import (
	"context"
	"fmt"
	"sync"
)

// Memo remembers the models it trained, by language tag, intents and
// options, so tiers that learn the same skills train once: a test binary
// starts many robots. Training is deterministic (Options.Seed), so a
// remembered model is the one training would make. It keeps every model
// it made; use one only where few intent sets are learnt, and only for
// tiers that share their language data.
type Memo struct {
	mu     sync.Mutex
	models map[string]*Model
}

// NewMemo returns an empty Memo.
func NewMemo() *Memo { return &Memo{models: map[string]*Model{}} }

// Train is TrainContext, remembered (TierOptions.Trainer). A training
// that fails is not remembered.
func (m *Memo) Train(ctx context.Context, tag string, intents []Intent, o Options) (*Model, error) {
	ko := o
	ko.Language = nil // the tag stands for the data
	key := fmt.Sprintf("%s\x00%#v\x00%#v", tag, intents, ko)
	m.mu.Lock()
	model := m.models[key]
	m.mu.Unlock()
	if model != nil {
		return model, nil
	}
	model, err := TrainContext(ctx, intents, o)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	m.models[key] = model
	m.mu.Unlock()
	return model, nil
}
