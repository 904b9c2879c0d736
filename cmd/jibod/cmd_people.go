package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/openjibo/jibod/core/runtime"
	"github.com/openjibo/jibod/core/skill/people"
	"github.com/openjibo/jibod/core/skill/people/peopletool"
)

const peopleUsage = `Usage:
  jibod people list [--state DIR] [--json]        the people the robot knows; * marks the owner
  jibod people add [--state DIR] --first NAME [--last NAME] [--phonetic SAY] [--gender G]
                 [--birthdate YYYY-MM-DD] [--owner]
                                                add someone (the first added is the owner; --owner: make them the owner)
  jibod people remove [--state DIR] ID|NAME       take someone out (the owner only last)
  jibod people owner [--state DIR] ID|NAME        make someone the owner

A running jibod on the same state folder sees each change within seconds.
`

// cmdPeople dispatches the tools for the people the robot knows (its loop).
func cmdPeople(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, peopleUsage)
		return usageError{"people: missing command"}
	}
	switch args[0] {
	case "list":
		return cmdPeopleList(args[1:], stdout, stderr)
	case "add":
		return cmdPeopleAdd(args[1:], stdout, stderr)
	case "remove":
		return cmdPeopleRemove(args[1:], stdout, stderr)
	case "owner":
		return cmdPeopleOwner(args[1:], stdout, stderr)
	default:
		fmt.Fprint(stderr, peopleUsage)
		return usageError{fmt.Sprintf("people: unknown command %q", args[0])}
	}
}

// peopleFlags declares --state on a loop command's flags.
func peopleFlags(name string, stderr io.Writer) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet("people "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs, fs.String("state", runtime.DefaultStateDir(), "the robot's state folder (as given to 'jibod run --state'), whose "+people.FileName+" keeps the loop")
}

// openPeople opens the loop file of the state folder, making both if
// missing; a bad file is an error here, unlike in a running robot.
func openPeople(stateDir string) (*people.Store, error) {
	if stateDir == "" || stateDir == runtime.NoState {
		return nil, usageError{"--state: the robot keeps its loop only in a state folder"}
	}
	if err := runtime.PrepareStateDir(stateDir); err != nil {
		return nil, err
	}
	// Nothing to log: every problem is returned.
	return people.Open(filepath.Join(stateDir, people.FileName), people.Options{Logger: slog.New(slog.DiscardHandler)})
}

// personRef is a command's ID|NAME: the words of the arguments, so a full
// name need not be quoted.
func personRef(fs *flag.FlagSet) (string, error) {
	if fs.NArg() == 0 {
		return "", usageError{"want the id or name of a loop member (see 'jibod people list')"}
	}
	return strings.Join(fs.Args(), " "), nil
}

// peopleChangeError makes a refused change a usage error when the command
// line was at fault (a bad name or date).
func peopleChangeError(err error) error {
	var ferr *people.FileError
	if errors.Is(err, people.ErrInvalid) && !errors.As(err, &ferr) {
		return usageError{err.Error()}
	}
	return err
}

func cmdPeopleList(args []string, stdout, stderr io.Writer) error {
	fs, stateDir := peopleFlags("list", stderr)
	asJSON := fs.Bool("json", false, "print members as JSON lines")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	s, err := openPeople(*stateDir)
	if err != nil {
		return err
	}
	return peopletool.List(stdout, s, *asJSON)
}

func cmdPeopleAdd(args []string, stdout, stderr io.Writer) error {
	fs, stateDir := peopleFlags("add", stderr)
	var m people.Member
	fs.StringVar(&m.FirstName, "first", "", "first name (required): letters, spaces, apostrophes, hyphens")
	fs.StringVar(&m.LastName, "last", "", "last name")
	fs.StringVar(&m.PhoneticName, "phonetic", "", "how to say the first name, spelt as it sounds (e.g. Shivawn for Siobhan)")
	fs.StringVar(&m.Gender, "gender", "", "gender, free text (skills' conditions compare e.g. female, male)")
	fs.StringVar(&m.Birthdate, "birthdate", "", "birthdate as YYYY-MM-DD")
	owner := fs.Bool("owner", false, "make them the owner (the first person added is the owner anyway)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q (a name with spaces needs quotes: --first \"Mary Jane\")", fs.Arg(0))}
	}
	if strings.TrimSpace(m.FirstName) == "" {
		return usageError{"--first: a first name is required"}
	}
	s, err := openPeople(*stateDir)
	if err != nil {
		return err
	}
	return peopleChangeError(peopletool.Add(stdout, stderr, s, m, *owner))
}

func cmdPeopleRemove(args []string, stdout, stderr io.Writer) error {
	return changePerson("remove", args, stdout, stderr, (*people.Store).Remove, "removed %s (%s)\n")
}

func cmdPeopleOwner(args []string, stdout, stderr io.Writer) error {
	return changePerson("owner", args, stdout, stderr, (*people.Store).SetOwner, "%s (%s) is the owner\n")
}

// changePerson runs a subcommand that names one member (by id or an
// unambiguous name) and changes the loop through it; done reports the
// member with their name and id.
func changePerson(name string, args []string, stdout, stderr io.Writer,
	change func(*people.Store, string) (people.Member, error), done string) error {
	fs, stateDir := peopleFlags(name, stderr)
	if err := parseFlags(fs, reorderFlags(args, "state")); err != nil {
		return err
	}
	ref, err := personRef(fs)
	if err != nil {
		return err
	}
	s, err := openPeople(*stateDir)
	if err != nil {
		return err
	}
	m, err := change(s, ref)
	if err != nil {
		return peopleChangeError(err)
	}
	fmt.Fprintf(stdout, done, m.Name(), m.ID)
	return nil
}
