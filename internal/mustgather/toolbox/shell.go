/*
Copyright 2026 The ec2-operator Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package toolbox

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// shellMain is `bash -c SCRIPT [NAME [ARGS...]]` and `bash FILE`: the POSIX and bash
// syntax mvdan.cc/sh interprets, with the toolbox's commands run in the same process
// and any other command executed from PATH.
func shellMain(ctx context.Context, s Streams, args []string) int {
	var script, name string
	switch {
	case len(args) >= 2 && args[0] == "-c":
		script, name, args = args[1], "bash", args[2:]
		if len(args) > 0 {
			name, args = args[0], args[1:]
		}
	case len(args) >= 1 && !strings.HasPrefix(args[0], "-"):
		data, err := os.ReadFile(resolve(s, args[0]))
		if err != nil {
			return failf(s, 127, "bash", "%v", err)
		}
		script, name, args = string(data), args[0], args[1:]
	default:
		return failf(s, 2, "bash", "usage: bash -c SCRIPT [NAME [ARG...]] | bash FILE [ARG...] (this image's shell runs scripts, not a terminal)")
	}
	file, err := syntax.NewParser().Parse(strings.NewReader(script), name)
	if err != nil {
		return failf(s, 2, "bash", "%v", err)
	}
	runner, err := interp.New(
		interp.StdIO(s.In, s.Out, s.Err),
		interp.Dir(s.Dir),
		interp.Params(append([]string{"--"}, args...)...),
		interp.CallHandler(trapSignals),
		interp.ExecHandlers(inProcess),
	)
	if err != nil {
		return failf(s, 2, "bash", "%v", err)
	}
	err = runner.Run(ctx, file)
	if status, ok := interp.IsExitStatus(err); ok {
		return int(status)
	}
	if err != nil {
		return failf(s, 1, "bash", "%v", err)
	}
	return 0
}

// inProcess runs the toolbox's commands without a new process, so that a pipeline of
// them works even where only the shell's binary is on PATH.
func inProcess(next interp.ExecHandlerFunc) interp.ExecHandlerFunc {
	return func(ctx context.Context, args []string) error {
		cmd, ok := commands[args[0]]
		if !ok {
			return next(ctx, args)
		}
		hc := interp.HandlerCtx(ctx)
		if status := cmd(ctx, Streams{In: hc.Stdin, Out: hc.Stdout, Err: hc.Stderr, Dir: hc.Dir}, args[1:]); status != 0 {
			return interp.NewExitStatus(uint8(status))
		}
		return nil
	}
}

// trapSignals handles `trap : SIGNAL...`, the form oc uses, before the interpreter
// (which knows only EXIT and ERR traps) sees it. In bash the trap makes a TERM or INT
// end `wait` and so the script; here every command already stops on those signals
// (the binary's context is cancelled), so the trap only has to be accepted. Other
// traps go to the interpreter.
func trapSignals(_ context.Context, args []string) ([]string, error) {
	if args[0] != "trap" || len(args) < 3 || args[1] != ":" {
		return args, nil
	}
	for _, name := range args[2:] {
		if _, err := signalNamed(name); err != nil {
			return args, nil
		}
	}
	return []string{":"}, nil
}

// signalNamed reads HUP, SIGHUP, 1 and the like, for trap and pkill.
func signalNamed(name string) (syscall.Signal, error) {
	byName := map[string]syscall.Signal{
		"HUP": syscall.SIGHUP, "INT": syscall.SIGINT, "QUIT": syscall.SIGQUIT, "KILL": syscall.SIGKILL,
		"USR1": syscall.SIGUSR1, "USR2": syscall.SIGUSR2, "TERM": syscall.SIGTERM, "CONT": syscall.SIGCONT, "STOP": syscall.SIGSTOP,
	}
	if sig, ok := byName[strings.TrimPrefix(strings.ToUpper(name), "SIG")]; ok {
		return sig, nil
	}
	if n, err := strconv.Atoi(name); err == nil && n > 0 && n < 65 {
		return syscall.Signal(n), nil
	}
	return 0, errors.New("unknown signal " + name)
}

// sleepCmd is `sleep DURATION...`: seconds with an optional s, m, h or d suffix,
// fractions, and infinity.
func sleepCmd(ctx context.Context, s Streams, args []string) int {
	if len(args) == 0 {
		return failf(s, 2, "sleep", "missing operand")
	}
	var total time.Duration
	for _, arg := range args {
		if arg == "inf" || arg == "infinity" {
			<-ctx.Done()
			return 0
		}
		unit := time.Second
		num := arg
		if i := len(arg) - 1; i > 0 {
			if u, ok := map[byte]time.Duration{'s': time.Second, 'm': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour}[arg[i]]; ok {
				unit, num = u, arg[:i]
			}
		}
		f, err := strconv.ParseFloat(num, 64)
		if err != nil || f < 0 {
			return failf(s, 1, "sleep", "invalid time interval %q", arg)
		}
		total += time.Duration(f * float64(unit))
	}
	select {
	case <-time.After(total):
	case <-ctx.Done():
	}
	return 0
}

// syncCmd flushes the file systems, so that the copy container sees every file.
func syncCmd(_ context.Context, _ Streams, _ []string) int {
	syscall.Sync()
	return 0
}
