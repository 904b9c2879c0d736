package hearing

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/openjibo/jibod/audio/listen"
	"github.com/openjibo/jibod/audio/transform"
	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/console"
	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/pipeline"
)

// Bus topics the listener follows, besides the pipeline's.
const (
	// TopicWakeRequest is the shell asking the robot to listen.
	TopicWakeRequest = "jibo.audio.wake.request"
	// TopicSpeaker* are the speaker's events as the robot publishes them
	// (jibo.body.<device>.<kind>): the listener knows from them when the
	// robot is talking.
	TopicSpeakerSay         = "jibo.body.speaker.say"
	TopicSpeakerDone        = "jibo.body.speaker.done"
	TopicSpeakerInterrupted = "jibo.body.speaker.interrupted"
)

// maxWakeButtons bounds the wake buttons.
const maxWakeButtons = 16

func buttonTopic(name string) string { return "jibo.body.button." + name + ".press" }

// busEvents puts what the listener hears and does on the robot's bus
// (listen.Events), as from the source "audio".
type busEvents struct{ bus *bus.Bus }

func (e busEvents) publish(ctx context.Context, m bus.Message) error {
	m.Context[bus.KeySource] = "audio"
	return e.bus.Publish(ctx, m)
}

// Event publishes one of the listener's events on its topic.
func (e busEvents) Event(ctx context.Context, topic string, data map[string]any) error {
	return e.publish(ctx, bus.NewMessage(topic, data))
}

// Stop publishes the global stop (STOP-06): the skill host stops what the
// body does, speech included.
func (e busEvents) Stop(ctx context.Context) error {
	return e.publish(ctx, bus.NewMessage(pipeline.TopicStop, map[string]any{}))
}

// Speak publishes words the robot says on its own, as a skill's are.
func (e busEvents) Speak(ctx context.Context, words, lang string) error {
	data := map[string]any{"utterance": words}
	if lang != "" {
		data["lang"] = lang
	}
	return e.publish(ctx, bus.NewMessage(pipeline.TopicSpeak, data))
}

// Command sends a spoken command to the pipeline: data {utterances,
// lang} (PIPE-01); context.jibo_input ties its lifecycle to it as the text
// inputs' do; intent.ContextASR carries what the recogniser made of it,
// {"scores": [confidence per utterance, in order], "pass": "grammar" |
// "open"}, for the intent stack to weigh with its own; the ids of the
// audio transformers that changed it ride as TRF-03 asks. The scores ride
// in context, not data: unknown context keys are ignored by every
// consumer (MSG-08).
func (e busEvents) Command(ctx context.Context, c listen.Command) error {
	utts := make([]any, len(c.Utterances))
	for i, u := range c.Utterances {
		utts[i] = u
	}
	scores := make([]any, len(c.Scores))
	for i, s := range c.Scores {
		scores[i] = s
	}
	data := map[string]any{"utterances": utts}
	if c.Lang != "" {
		data["lang"] = c.Lang
	}
	m := bus.NewMessage(pipeline.TopicHandle, data)
	m.Context[console.KeyInput] = c.ID
	pass := "grammar"
	if c.Open {
		pass = "open"
	}
	m.Context[intent.ContextASR] = map[string]any{"scores": scores, "pass": pass}
	if len(c.Transformers) > 0 {
		ids := make([]any, len(c.Transformers))
		for i, s := range c.Transformers {
			ids[i] = s
		}
		m.Context[transform.KeyIDs] = ids
	}
	return e.publish(ctx, m)
}

// busListener is a listener wired to the robot's bus: what it hears goes
// out as messages, and it follows the wake requests, the wake buttons,
// the questions skills ask, the speaker and the lifecycles' ends, and
// answers the TRF-10 list of its audio transformers.
type busListener struct {
	lis     *listen.Listener
	bus     *bus.Bus
	chain   *transform.Chain
	buttons []string
	log     *slog.Logger
}

// newBusListener builds a listener from cfg (its Events are the bus's)
// that buttons, the names of the board's buttons (device.Button) whose
// press opens the window, wake.
func newBusListener(b *bus.Bus, cfg listen.Config, buttons []string) (*busListener, error) {
	if b == nil {
		return nil, errors.New("listener: no bus")
	}
	if len(buttons) > maxWakeButtons {
		return nil, fmt.Errorf("listener: %d wake buttons, limit %d", len(buttons), maxWakeButtons)
	}
	for _, name := range buttons {
		if err := bus.ValidateTopic(buttonTopic(name)); err != nil || strings.Contains(name, ".") {
			return nil, fmt.Errorf("listener: wake button name %q is not usable in a topic", name)
		}
	}
	cfg.Events = busEvents{b}
	lis, err := listen.New(cfg)
	if err != nil {
		return nil, err
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	return &busListener{lis: lis, bus: b, chain: cfg.Chain, buttons: buttons, log: log.With("component", "listener")}, nil
}

// Run follows the bus and listens until the source or ctx ends
// (listen.Listener.Run).
func (bl *busListener) Run(ctx context.Context) error {
	topics := []string{TopicWakeRequest, pipeline.TopicSpeak, pipeline.TopicHandled,
		TopicSpeakerSay, TopicSpeakerDone, TopicSpeakerInterrupted, transform.TopicList}
	for _, name := range bl.buttons {
		topics = append(topics, buttonTopic(name))
	}
	// One subscription, so the listener sees the robot's messages in the
	// order they were published.
	sub, err := bl.bus.SubscribeAll(topics, bl.onBus, bus.WithName("listener"), bus.WithQueue(bus.DefaultQueueLen, bus.DropNewest))
	if err != nil {
		return fmt.Errorf("listener: %w", err)
	}
	defer sub.Close()
	return bl.lis.Run(ctx)
}

// onBus tells the listener what the robot does.
func (bl *busListener) onBus(ctx context.Context, m bus.Message) {
	switch m.Type {
	case TopicWakeRequest:
		bl.lis.Wake(ctx, listen.SourceShell)
	case pipeline.TopicSpeak:
		if asks, _ := m.Data["listen"].(bool); asks {
			bl.lis.Asked()
		}
	case TopicSpeakerSay:
		bl.lis.Speaking(true)
	case TopicSpeakerDone, TopicSpeakerInterrupted:
		bl.lis.Speaking(false)
	case pipeline.TopicHandled:
		id, _ := m.Context[console.KeyInput].(string)
		bl.lis.Handled(id)
	case transform.TopicList:
		loaded, prios := bl.chain.List()
		ids := make([]any, len(loaded))
		for i, s := range loaded {
			ids[i] = s
		}
		p := map[string]any{}
		for k, v := range prios {
			p[k] = v
		}
		if err := bl.bus.Publish(ctx, m.Reply(transform.TopicListResp, map[string]any{"loaded": ids, "priorities": p})); err != nil {
			bl.log.Warn("answering the audio transformer list", "err", err)
		}
	default:
		if strings.HasPrefix(m.Type, "jibo.body.button.") {
			bl.lis.Wake(ctx, listen.SourceButton)
		}
	}
}
