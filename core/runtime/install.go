package runtime

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/openjibo/jibod/core/diag"
	"github.com/openjibo/jibod/core/skill/skilltool"
)

// SkillInstaller installs and uninstalls WebAssembly skill packages in
// stateDir as the robot would load them (each package's intents checked
// with CheckRegistration), and tells the jibod running with stateDir
// through its shell (skills sync), at socket or, when socket is "", where
// `jibod shell` looks for it.
func SkillInstaller(stateDir, socket string, stdout, stderr io.Writer) skilltool.Installer {
	return skilltool.Installer{StateDir: stateDir, Check: CheckRegistration, Stdout: stdout, Stderr: stderr,
		Tell: func(ctx context.Context, id string) (bool, error) {
			return diag.TellSkillSync(ctx, socket, stateDir, id, stdout)
		}}
}

// InstallSkill installs the package at src (a folder or a zip file of
// one) with SkillInstaller, making stateDir ready first; a src that does
// not exist leaves stateDir untouched.
func InstallSkill(ctx context.Context, stateDir, socket, src string, stdout, stderr io.Writer) error {
	if _, err := os.Stat(src); err != nil {
		return fmt.Errorf("installing: %w", err)
	}
	if err := PrepareStateDir(stateDir); err != nil {
		return err
	}
	return SkillInstaller(stateDir, socket, stdout, stderr).Install(ctx, src)
}
