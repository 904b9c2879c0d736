package diag

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// command is one shell command.
type command struct {
	name string
	// aliases are other names the command answers to, not listed.
	aliases []string
	// usage is the synopsis after the name: "<axis> <angle>|home|limits|off|on".
	usage string
	// summary is one line for `help`; help is the rest of `help <name>`.
	summary string
	help    string
	// privileged, when set, says whether these arguments need technician
	// mode.
	privileged func(args []string) bool
	run        func(c *call) error
	// complete offers the next word after args.
	complete func(s *Server, args []string) []string
}

func always([]string) bool { return true }

// call is one run of a command.
type call struct {
	ctx  context.Context
	s    *session
	srv  *Server
	name string
	args []string
	json bool
}

// printf prints text for people (sanitised).
func (c *call) printf(format string, a ...any) error {
	return c.s.out.text(fmt.Sprintf(format, a...))
}

// emit prints v as one JSON line.
func (c *call) emit(v any) error {
	l, err := jsonLine(v)
	if err != nil {
		return fmt.Errorf("encoding output: %w", err)
	}
	return c.s.out.raw(l)
}

// table prints rows as aligned columns.
func (c *call) table(rows [][]string) error {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 2, 8, 2, ' ', 0)
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return c.s.out.text(b.String())
}

// usageErr is a command used wrongly.
func (c *call) usageErr(format string, a ...any) error {
	cmd := c.srv.cmds[c.name]
	return fmt.Errorf("%s; usage: %s %s", fmt.Sprintf(format, a...), cmd.name, cmd.usage)
}

// missing is the error of a robot without what a command needs.
func missing(what string) error { return errors.New("this robot has no " + what) }

// commands is the shell's command table.
func (s *Server) commands() []*command {
	return []*command{
		{name: "help", usage: "[command]", summary: "list the commands, or explain one",
			help: "`help` lists every command; `help <command>` explains one. Commands marked * need technician mode.",
			run:  cmdHelp, complete: func(s *Server, args []string) []string {
				if len(args) == 0 {
					return s.names
				}
				return nil
			}},
		{name: "status", summary: "how the robot is: uptime, version, board, hub, CPU and memory, control loop, audio, last errors",
			help: statusHelp, run: cmdStatus},
		{name: "version", summary: "the runtime's version", help: "Prints jibod's version, the Go version and the platform.", run: cmdVersion},
		{name: "log", usage: "[debug|info|warn|error] [follow] [-n N]", summary: "recent log records; follow shows new ones live",
			help: "Prints the newest log records at the level given and above (info by default; the robot keeps its last " +
				strconv.Itoa(DefaultLogCapacity) + " at info and above). -n bounds how many (default 50). `follow` goes on printing new records until Ctrl-C; `log debug follow` shows debug records even when the log level is higher.",
			run: cmdLog, complete: func(*Server, []string) []string { return []string{"debug", "info", "warn", "error", "follow", "-n"} }},
		{name: "bus", usage: "tail [topic-prefix...] [--count N] [--full] | stats", summary: "watch bus messages live, or the bus counters",
			help: "`bus tail` prints every bus message as it is published until Ctrl-C: time, topic and data. Prefixes narrow it (`bus tail ovos.utterance jibo.body.motion`); --count N stops after N messages; --full prints data uncut. A terminal slower than the bus loses messages rather than slow the robot: the count is shown at the end. `bus stats` prints the bus counters.",
			run:  cmdBus, complete: func(_ *Server, args []string) []string {
				if len(args) == 0 {
					return []string{"tail", "stats"}
				}
				if args[0] == "tail" {
					return []string{"ovos.", "ovos.utterance.", "ovos.intent.", "jibo.", "jibo.body.", "jibo.skill.", "--count", "--full"}
				}
				return nil
			}},
		{name: "utter", usage: "<text>", summary: "hand text to the robot as if it had been heard, and show what follows",
			help: "Publishes the text as an utterance (ovos.utterance.handle) and prints its lifecycle as it happens: the match, the skill, what the robot says, and the end. Ctrl-C stops watching; the robot carries on.",
			run:  cmdUtter},
		{name: "stop", summary: "stop the robot: its speech and motion, at once",
			help: "Stops everything the robot does, as the head button does: the global stop (ovos.stop) ends every skill's action, speech and motion at once, forgets what the skills were asking, and the body returns to rest.",
			run:  cmdStop},
		{name: "say", usage: "<text>", summary: "make the robot speak the text",
			help: "Speaks the text on the robot's speaker, as plain words (no markup). Ctrl-C stops the speech.", run: cmdSay},
		{name: "skills", usage: "[sync [ID...]]", summary: "the installed skills and how their recent calls went; sync: load what was installed since",
			help: "Lists each skill: id, version, safety level, permissions, and of its recent calls how many there were, how many failed and the last outcome. Installed skills left out follow, each with why it was not loaded. `skills sync [ID...]` makes the running skills match the packages installed in the state folder (all, or the ids named): a package installed since is loaded, one installed again replaces the running version (its conversations end), one uninstalled is unloaded; `jibod skills install` and `uninstall` run it for you.",
			run:  cmdSkills, complete: func(s *Server, args []string) []string {
				if len(args) == 0 {
					return []string{"sync"}
				}
				return s.skillIDs(args[1:])
			}},
		{name: "intents", usage: "[skill]", summary: "the intents the robot understands, of one skill or all",
			help: "Asks the intent service what it has indexed (ovos.intent.list): skill, intent, language, engine, enabled. A skill is named by id (jibo/clock) or bus id (jibo.clock).",
			run:  cmdIntents, complete: func(s *Server, args []string) []string { return s.skillIDs(args) }},
		{name: "session", summary: "the default session: language, pipeline, active skills, response mode, context",
			help: "Prints the default session as the pipeline keeps it (the OVOS session carrier).", run: cmdSession},
		{name: "pipeline", summary: "the pipeline's stages and the recent utterances with what they matched",
			help: "Prints the stages in order and the last utterances: what matched (skill:intent and stage), or unmatched, or the handler error, and how long each took from the match to its end.", run: cmdPipeline},
		{name: "hub", usage: "[status] | trigger NEW_ARRIVAL|SURPRISE", summary: "the cloud hub link and its remote skills; * ask the hub for a proactive skill",
			help: hubHelp, privileged: func(args []string) bool { return len(args) > 0 && args[0] == "trigger" },
			run: cmdHub, complete: hubComplete},
		{name: "people", aliases: []string{"loop"}, summary: "the people the robot knows (its loop): id, name, the owner",
			help: peopleHelp, run: cmdPeople},
		{name: "motor", usage: "<axis> <angle> [--override] | home | on | off | limits", summary: "* move an axis, home, power the motors, or show the limits",
			help: motorHelp, privileged: func(args []string) bool { return len(args) > 0 && args[0] != "limits" },
			run: cmdMotor, complete: func(s *Server, args []string) []string {
				if len(args) == 0 {
					return append(axisNames(), "home", "on", "off", "limits")
				}
				if len(args) == 2 {
					return []string{"--override"}
				}
				return nil
			}},
		{name: "led", usage: "<colour>|off|test", summary: "set the LED ring to a colour, turn it off, or run the test pattern",
			help: "`led red` (or #rrggbb) lights the whole ring; `led off` darkens it; `led test` shows red, green, blue, white and a rainbow so every pixel and channel can be checked; `led` alone prints what the ring shows.",
			run:  cmdLED, complete: func(s *Server, args []string) []string {
				if len(args) == 0 {
					var names []string
					if s.env.Lights != nil {
						names = s.env.Lights.Colours()
					}
					return append(names, "off", "test")
				}
				return nil
			}},
		{name: "audio", usage: "devices | listen | level [seconds] | record <seconds> <file>", summary: "the microphone: devices, listen now, input level, * record a WAV",
			help: audioHelp, privileged: func(args []string) bool { return len(args) > 0 && args[0] == "record" },
			run: cmdAudio, complete: func(_ *Server, args []string) []string {
				if len(args) == 0 {
					return []string{"devices", "listen", "level", "record"}
				}
				return nil
			}},
		{name: "board", usage: "check", summary: "check every device of the body answers",
			help: "`board check` asks each device of the running body whether it answers (the motors, the LED ring, the power switch, the speaker...) and prints one line each.",
			run:  cmdBoard, complete: func(_ *Server, args []string) []string {
				if len(args) == 0 {
					return []string{"check"}
				}
				return nil
			}},
		{name: "selftest", summary: "exercise the software chain end to end",
			help: "Runs jibod's self-test (the one `jibod selftest` runs) on a private simulated body: bus, codecs, intents, skills, a two-turn conversation, the executor. The real body does not move and the robot's conversations are untouched; use `board check` for the devices.",
			run:  cmdSelftest},
		{name: "config", usage: "get [key] | set <key>=<value>... | set <key> <value>", summary: "show the runtime configuration; * change it",
			help:       "`config get` prints every key with its value and meaning; `config set` changes one or more keys at once: every value is checked first and nothing changes unless all are valid; if applying one fails, the ones already applied are put back. Changes last until jibod restarts.",
			privileged: func(args []string) bool { return len(args) > 0 && args[0] == "set" },
			run:        cmdConfig, complete: func(s *Server, args []string) []string {
				if len(args) == 0 {
					return []string{"get", "set"}
				}
				var keys []string
				for _, st := range s.settings {
					keys = append(keys, st.Key)
				}
				return keys
			}},
		{name: "reboot", usage: "[--yes]", summary: "* restart the robot",
			help:       "Asks for confirmation (or takes --yes), then restarts the robot in the way its configuration says (shown before asking).",
			privileged: always, run: cmdReboot},
		{name: "unlock", summary: "enter technician mode with the robot's PIN",
			help: "Asks for the technician PIN (not echoed). " + strconv.Itoa(MaxWrongPINs) + " wrong PINs in a row lock technician mode out for " + DefaultLockout.String() + ", doubling each time, for every session. Technician mode locks again after the idle time (config shell.idle_lock), with `lock`, or when the session ends.",
			run:  cmdUnlock},
		{name: "lock", summary: "leave technician mode", help: "Leaves technician mode.", run: cmdLock},
		{name: "exit", summary: "leave the shell (Ctrl-D too)", help: "Ends this session; the robot carries on.", run: cmdExit},
	}
}

// complete offers completions for the editor.
func (s *Server) complete(head []string, word string) []string {
	if len(head) == 0 {
		return s.names
	}
	c, ok := s.cmds[head[0]]
	if !ok || c.complete == nil {
		return nil
	}
	return c.complete(s, head[1:])
}

// suggest names the commands the mistyped name may have meant.
func (s *Server) suggest(name string) string {
	var near []string
	for _, n := range s.names {
		if strings.HasPrefix(n, name) || editDistance(n, name) <= 2 {
			near = append(near, n)
		}
	}
	if len(near) == 0 || len(near) > 4 {
		return ""
	}
	return " (did you mean " + strings.Join(near, ", ") + "?)"
}

// editDistance is the Levenshtein distance of two short words.
func editDistance(a, b string) int {
	if len(a) > 32 || len(b) > 32 {
		return 99
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func cmdHelp(c *call) error {
	if len(c.args) > 1 {
		return c.usageErr("one command at most")
	}
	if len(c.args) == 1 {
		cmd, ok := c.srv.cmds[c.args[0]]
		if !ok {
			return fmt.Errorf("no command %q%s", c.args[0], c.srv.suggest(c.args[0]))
		}
		if c.json {
			return c.emit(map[string]any{"command": cmd.name, "usage": strings.TrimSpace(cmd.name + " " + cmd.usage),
				"summary": strings.TrimPrefix(cmd.summary, "* "), "help": cmd.help, "technician": cmd.privileged != nil})
		}
		return c.printf("%s\n  %s\n\n%s\n\nEvery command takes --json for output a program can read.\n",
			strings.TrimSpace(cmd.name+" "+cmd.usage), cmd.summary, wrap(cmd.help, helpWidth))
	}
	if c.json {
		var list []map[string]any
		for _, n := range c.srv.names {
			cmd := c.srv.cmds[n]
			list = append(list, map[string]any{"command": n, "usage": strings.TrimSpace(n + " " + cmd.usage),
				"summary": strings.TrimPrefix(cmd.summary, "* "), "technician": cmd.privileged != nil})
		}
		return c.emit(map[string]any{"commands": list})
	}
	var rows [][]string
	for _, n := range c.srv.names {
		rows = append(rows, []string{n, c.srv.cmds[n].summary})
	}
	if err := c.table(rows); err != nil {
		return err
	}
	return c.printf("\n* needs technician mode (`unlock`). `help <command>` explains one; --json prints JSON.\n")
}

// helpWidth is the columns a command's help fills, for an 80-column
// terminal.
const helpWidth = 72

// wrap lays out a command's help in lines of at most width columns: its
// paragraphs are filled, and its tables, lines starting with two spaces
// (a usage, two spaces or more, its meaning; further indented lines go on
// with the meaning), become each usage on a line of its own with its
// meaning filled under it, so neither runs into the other.
func wrap(text string, width int) string {
	const indent = "      "
	var b strings.Builder
	var para []string
	var term string
	var desc []string
	flush := func() {
		switch {
		case term != "":
			line(&b, "  "+term)
			for _, l := range strings.Split(fill(strings.Join(desc, " "), width-len(indent)), "\n") {
				line(&b, indent+l)
			}
		case len(para) > 0:
			line(&b, fill(strings.Join(para, " "), width))
		}
		para, term, desc = nil, "", nil
	}
	for _, l := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(l, "   ") && term != "":
			desc = append(desc, strings.TrimSpace(l))
		case strings.HasPrefix(l, "  ") && strings.TrimSpace(l) != "":
			flush()
			t, d, _ := strings.Cut(strings.TrimSpace(l), "  ")
			term, desc = t, []string{strings.TrimSpace(d)}
		default:
			if term != "" {
				flush()
			}
			para = append(para, l)
		}
	}
	flush()
	return strings.TrimSuffix(b.String(), "\n")
}

// line writes l and a line break.
func line(b *strings.Builder, l string) {
	b.WriteString(strings.TrimRight(l, " "))
	b.WriteByte('\n')
}

// fill breaks text into lines of at most width columns, at spaces.
func fill(text string, width int) string {
	var b strings.Builder
	col := 0
	for _, w := range strings.Fields(text) {
		if col > 0 && col+1+len(w) > width {
			b.WriteString("\n")
			col = 0
		}
		if col > 0 {
			b.WriteByte(' ')
			col++
		}
		b.WriteString(w)
		col += len(w)
	}
	return b.String()
}

func cmdVersion(c *call) error {
	v := versionInfo()
	v["version"] = c.srv.env.Version
	if c.json {
		return c.emit(v)
	}
	return c.printf("jibod %s (%s, %s)\n", c.srv.env.Version, v["go"], v["platform"])
}

func cmdExit(c *call) error {
	if len(c.args) > 0 {
		return c.usageErr("no arguments")
	}
	c.s.quit = true
	return nil
}

func cmdUnlock(c *call) error {
	if len(c.args) > 0 {
		return c.usageErr("the PIN is asked for, never given on the command line")
	}
	g := c.srv.gate
	if g.hash == nil {
		return fmt.Errorf("%w: set one (see `jibod shell --hash-pin`) and restart jibod", ErrNoPIN)
	}
	if d := g.lockedOut(); d > 0 {
		return fmt.Errorf("%w: try again in %s", ErrLockedOut, roundUp(d))
	}
	pin, err := c.ask("PIN: ", true)
	if err != nil {
		return err
	}
	err = g.try(strings.TrimSpace(pin))
	log := c.srv.log.With("session", c.s.id, "from", c.s.conn.Name)
	if err != nil {
		log.Warn("shell: technician unlock failed", "why", err.Error())
		if errors.Is(err, ErrWrongPIN) && c.srv.pinDelay > 0 {
			t := time.NewTimer(c.srv.pinDelay)
			select {
			case <-t.C:
			case <-c.ctx.Done():
			}
			t.Stop()
		}
		return err
	}
	c.s.setTechnician(true)
	log.Warn("shell: technician mode unlocked")
	if c.json {
		return c.emit(map[string]any{"technician": true, "idle_lock": c.srv.idleLimit().String()})
	}
	return c.printf("technician mode: body, configuration and reboot commands are allowed; it locks after %s idle, or with `lock`\n", c.srv.idleLimit())
}

func cmdLock(c *call) error {
	was := c.s.isTechnician()
	c.s.setTechnician(false)
	if was {
		c.srv.log.Warn("shell: technician mode locked", "session", c.s.id, "from", c.s.conn.Name)
	}
	if c.json {
		return c.emit(map[string]any{"technician": false})
	}
	return c.printf("technician mode locked\n")
}

// skillIDs completes skill ids.
func (s *Server) skillIDs(args []string) []string {
	if len(args) > 0 || s.env.Skills == nil {
		return nil
	}
	var out []string
	for _, m := range s.env.Skills.Skills() {
		out = append(out, m.ID, m.BusID())
	}
	sort.Strings(out)
	return out
}
