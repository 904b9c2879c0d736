package jcp

import (
	"encoding/json"
	"fmt"
)

// View kinds of a DISPLAY's view (spec/jibo.md §3.3, display views).
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

// View is what a DISPLAY's view asks to show, as far as a display device
// needs to know.
type View struct {
	// Kind is one of the View* constants.
	Kind string
	// Text is a TEXT view's text or a MENU's title; "" otherwise.
	Text string
}

// ParseView reads a DISPLAY's view: an object whose "type" is a known
// kind; a TEXT view needs its "text". Other fields are kept by the
// DISPLAY's raw view but not read here.
func ParseView(raw json.RawMessage) (View, error) {
	o, err := decodeObject(raw, "")
	if err != nil {
		return View{}, err
	}
	kind, _, err := o.str("type", true)
	if err != nil {
		return View{}, err
	}
	v := View{Kind: kind}
	switch kind {
	case ViewText:
		if v.Text, _, err = o.str("text", true); err != nil {
			return View{}, err
		}
	case ViewMenu:
		if v.Text, _, err = o.str("title", false); err != nil {
			return View{}, err
		}
	case ViewEye, ViewNone, ViewSkill, ViewImage, ViewLoopMenu, ViewPhotoGallery:
	default:
		return View{}, fieldErr("type", "unknown view type %q (want one of %s, %s, %s, %s, %s, %s, %s, %s)", kind,
			ViewEye, ViewNone, ViewText, ViewSkill, ViewMenu, ViewImage, ViewLoopMenu, ViewPhotoGallery)
	}
	if err := checkString("text", v.Text); err != nil {
		return View{}, fmt.Errorf("view %w", err)
	}
	return v, nil
}
