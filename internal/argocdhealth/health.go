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

// Package argocdhealth runs the Argo CD health checks of config/argocd the way Argo CD
// runs resource customizations: the Lua script with the object as the global obj,
// returning a table with status and message. Tests use it on objects the operator
// wrote, so that the scripts are proven against real statuses, not hand-made ones.
package argocdhealth

import (
	"fmt"
	"os"
	"path/filepath"

	lua "github.com/yuin/gopher-lua"
)

// The health statuses Argo CD knows.
const (
	Healthy     = "Healthy"
	Progressing = "Progressing"
	Degraded    = "Degraded"
	Suspended   = "Suspended"
	Missing     = "Missing"
	Unknown     = "Unknown"
)

// Result is what a health check returned.
type Result struct {
	Status  string
	Message string
}

// ScriptPath is where config/argocd keeps the health check of a kind of the group.
func ScriptPath(root, group, kind string) string {
	return filepath.Join(root, "config", "argocd", group, kind, "health.lua")
}

// Check runs the health check in file on obj (an object as the API server serves it,
// decoded from JSON) with the libraries Argo CD opens for it.
func Check(file string, obj map[string]any) (Result, error) {
	script, err := os.ReadFile(file)
	if err != nil {
		return Result{}, err
	}
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{{lua.BaseLibName, lua.OpenBase}, {lua.TabLibName, lua.OpenTable}, {lua.StringLibName, lua.OpenString}, {lua.MathLibName, lua.OpenMath}} {
		L.Push(L.NewFunction(lib.open))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
	L.SetGlobal("obj", toLua(L, obj))
	if err := L.DoString(string(script)); err != nil {
		return Result{}, fmt.Errorf("%s: %w", file, err)
	}
	ret, ok := L.Get(-1).(*lua.LTable)
	if !ok {
		return Result{}, fmt.Errorf("%s returned %s, not a table", file, L.Get(-1).Type())
	}
	res := Result{Status: lua.LVAsString(ret.RawGetString("status")), Message: lua.LVAsString(ret.RawGetString("message"))}
	switch res.Status {
	case Healthy, Progressing, Degraded, Suspended, Missing, Unknown:
		return res, nil
	}
	return res, fmt.Errorf("%s returned status %q, which Argo CD does not know", file, res.Status)
}

// toLua converts a decoded JSON value into Lua values: objects and arrays become
// tables (arrays from index 1), as Argo CD's conversion does.
func toLua(L *lua.LState, v any) lua.LValue {
	switch v := v.(type) {
	case nil:
		return lua.LNil
	case bool:
		return lua.LBool(v)
	case string:
		return lua.LString(v)
	case float64:
		return lua.LNumber(v)
	case int64:
		return lua.LNumber(v)
	case int:
		return lua.LNumber(v)
	case []any:
		t := L.NewTable()
		for _, e := range v {
			t.Append(toLua(L, e))
		}
		return t
	case map[string]any:
		t := L.NewTable()
		for k, e := range v {
			t.RawSetString(k, toLua(L, e))
		}
		return t
	}
	return lua.LString(fmt.Sprint(v))
}
