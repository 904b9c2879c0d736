package device

import "context"

// MaxDisplayLayer is the highest display layer; layers run 0..MaxDisplayLayer
// as on Jibo's screen (spec/jibo.md §3.1, DISPLAY.layer).
const MaxDisplayLayer = 4

// View kinds a Display can show, as JCP's display views name them.
const (
	ViewEye          = "EYE"
	ViewNone         = "NONE"
	ViewText         = "TEXT"
	ViewSkill        = "SKILL"
	ViewMenu         = "MENU"
	ViewImage        = "IMAGE"
	ViewLoopMenu     = "LOOP_MENU"
	ViewPhotoGallery = "PHOTO_GALLERY"
)

// View is one thing shown on the screen.
type View struct {
	// Name identifies the view so that it can be hidden again.
	Name string
	// Layer is 0..MaxDisplayLayer; a higher layer covers a lower one.
	Layer int
	// Kind is one of the View* constants.
	Kind string
	// Text is the text of a TEXT view or the title of a MENU; "" otherwise.
	Text string
	// Overlay is how the view covers what lies beneath: "", "dim" or "clear".
	Overlay string
}

// Display is the robot's screen, organised in layers. Each layer shows at
// most one view; showing a view on a layer replaces what was there.
type Display interface {
	// Show puts v on its layer.
	Show(ctx context.Context, v View) error
	// Hide removes the view called name from layer; hiding a view that is
	// not shown is not an error.
	Hide(ctx context.Context, layer int, name string) error
}
