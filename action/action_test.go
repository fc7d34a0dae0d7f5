// Package action holds rigor's GitHub Action (action.yml at the
// repository's root, its steps in rigor-action.sh) and the test that runs
// those steps end to end, as a runner would, against a scratch repository.
package action

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	yaml "go.yaml.in/yaml/v3"

	"github.com/rigorbench/rigor/experiments/shards/suite"
)

// actionFile is action.yml as far as the test reads it.
type actionFile struct {
	Inputs map[string]struct {
		Default string `yaml:"default"`
	} `yaml:"inputs"`
	Runs struct {
		Using string `yaml:"using"`
		Steps []struct {
			Name            string            `yaml:"name"`
			ID              string            `yaml:"id"`
			If              string            `yaml:"if"`
			ContinueOnError bool              `yaml:"continue-on-error"`
			Uses            string            `yaml:"uses"`
			With            map[string]string `yaml:"with"`
			Shell           string            `yaml:"shell"`
			Env             map[string]string `yaml:"env"`
			Run             string            `yaml:"run"`
		} `yaml:"steps"`
	} `yaml:"runs"`
}

func readAction(t *testing.T) (*actionFile, string) {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a actionFile
	if err := yaml.Unmarshal(b, &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	return &a, root
}

// runner plays a GitHub runner for the action's steps: it evaluates the
// few expressions action.yml uses, runs each run step with bash as a
// runner does, and does what the uses steps would (setup-go: the Go
// already here; upload-artifact: check the files are there; the cache: a
// directory of the test's).
type runner struct {
	t      *testing.T
	root   string // the action's checkout: github.action_path
	work   string // the repository's checkout, the steps' directory
	temp   string // runner.temp
	cache  string // what actions/cache saves and restores
	inputs map[string]string
	github map[string]string // github.event_name, github.ref_name, ...
	env    []string          // GITHUB_* and the rest of the environment
	path   []string          // GITHUB_PATH entries so far
	// uploads lists the files each upload-artifact step would upload,
	// and roots the directory each artifact's paths are relative to.
	uploads map[string][]string
	roots   map[string]string
	// stepOutputs holds what each step with an id wrote to its
	// GITHUB_OUTPUT: steps.ID.outputs.KEY.
	stepOutputs map[string]map[string]string
	// ran names the steps run by the last call of steps, in order, and
	// outputs holds what each printed and codes its exit code.
	ran     []string
	outputs map[string]string
	codes   map[string]int
}

var expr = regexp.MustCompile(`\$\{\{\s*([^}]*?)\s*\}\}`)

// value evaluates a context reference: inputs.X, github.X, runner.temp,
// steps.ID.outputs.X.
func (r *runner) value(ref string) string {
	switch {
	case strings.HasPrefix(ref, "steps."):
		id, key, ok := strings.Cut(strings.TrimPrefix(ref, "steps."), ".outputs.")
		if !ok {
			r.t.Fatalf("action.yml: an expression the test does not know: %s", ref)
		}
		return r.stepOutputs[id][key]
	case strings.HasPrefix(ref, "inputs."):
		return r.inputs[strings.TrimPrefix(ref, "inputs.")]
	case ref == "runner.temp":
		return r.temp
	case strings.HasPrefix(ref, "github."):
		return r.github[strings.TrimPrefix(ref, "github.")]
	}
	r.t.Fatalf("action.yml: an expression the test does not know: %s", ref)
	return ""
}

// subst replaces every ${{ ref }} in s.
func (r *runner) subst(s string) string {
	return expr.ReplaceAllStringFunc(s, func(m string) string { return r.value(expr.FindStringSubmatch(m)[1]) })
}

// cond evaluates an if: of the forms action.yml uses, terms of
// "ref == 'v'" or "ref != 'v'" joined by &&.
func (r *runner) cond(s string) bool {
	if s == "" {
		return true
	}
	term := regexp.MustCompile(`^\s*([a-z_.-]+)\s*(==|!=)\s*'([^']*)'\s*$`)
	for _, part := range strings.Split(s, "&&") {
		m := term.FindStringSubmatch(part)
		if m == nil {
			r.t.Fatalf("action.yml: an if: the test does not know: %q", s)
		}
		if (r.value(m[1]) == m[3]) != (m[2] == "==") {
			return false
		}
	}
	return true
}

// steps runs every step of a, in order, and returns the output of the
// last run step (the gate, in mode run) and its exit code. A run step
// that fails stops the test, unless it is the gate or continue-on-error.
func (r *runner) steps(a *actionFile) (string, int) {
	r.t.Helper()
	var out string
	code := 0
	r.ran, r.outputs, r.codes, r.stepOutputs = nil, map[string]string{}, map[string]int{}, map[string]map[string]string{}
	for _, st := range a.Runs.Steps {
		if !r.cond(st.If) {
			continue
		}
		r.ran = append(r.ran, st.Name)
		switch {
		case strings.HasPrefix(st.Uses, "actions/setup-go@"):
			if st.With["go-version"] == "" {
				r.t.Errorf("setup-go without a go-version")
			}
		case strings.HasPrefix(st.Uses, "actions/upload-artifact@"):
			name := r.subst(st.With["name"])
			if strings.ContainsAny(name, `/\":<>|*?`) {
				r.t.Errorf("step %q: artifact name %q has a character upload-artifact refuses", st.Name, name)
			}
			r.uploads[name], r.roots[name] = r.artifact(st.With["path"])
		case strings.HasPrefix(st.Uses, "actions/cache/restore@"), strings.HasPrefix(st.Uses, "actions/cache/save@"):
			path := r.subst(st.With["path"])
			saved := filepath.Join(r.cache, filepath.Base(path))
			from, to := saved, path
			if strings.Contains(st.Uses, "/save@") {
				from, to = path, saved
			}
			if b, err := os.ReadFile(from); err == nil {
				os.MkdirAll(filepath.Dir(to), 0o755)
				if err := os.WriteFile(to, b, 0o644); err != nil {
					r.t.Fatal(err)
				}
			}
		case st.Uses != "":
			r.t.Fatalf("step %q uses %s, which the test does not play", st.Name, st.Uses)
		default:
			if st.Shell != "bash" {
				r.t.Fatalf("step %q: shell %q, want bash", st.Name, st.Shell)
			}
			out, code = r.bash(st.Name, st.ID, r.subst(st.Run), st.Env)
			r.outputs[st.Name], r.codes[st.Name] = out, code
			if code != 0 && st.Name != "Gate" && !st.ContinueOnError {
				r.t.Fatalf("step %q exited %d:\n%s", st.Name, code, out)
			}
		}
	}
	return out, code
}

// artifact lists the files that upload-artifact would upload for path
// (its lines: files, globs or directories, whose files are all taken),
// and the directory the artifact's names are relative to: the one
// directory given, else the least common ancestor of the paths' search
// directories, as upload-artifact takes it.
func (r *runner) artifact(path string) ([]string, string) {
	var files, search []string
	for _, p := range strings.Split(strings.TrimSpace(r.subst(path)), "\n") {
		p = strings.TrimSpace(p)
		m, _ := filepath.Glob(p)
		for _, f := range m {
			fi, err := os.Stat(f)
			if err != nil || !fi.IsDir() {
				files = append(files, f)
				continue
			}
			filepath.WalkDir(f, func(q string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					files = append(files, q)
				}
				return nil
			})
		}
		if i := strings.IndexAny(p, "*?["); i >= 0 {
			p = filepath.Dir(p[:i] + "x")
		}
		search = append(search, p)
	}
	root := search[0]
	if len(search) > 1 {
		root = filepath.Dir(root)
		for _, p := range search[1:] {
			for root != "/" && !strings.HasPrefix(p, root+"/") {
				root = filepath.Dir(root)
			}
		}
	}
	return files, root
}

// bash runs script as a runner runs a bash step (bash --noprofile --norc
// -eo pipefail), in the checkout, with env substituted, and adds what it
// wrote to GITHUB_PATH to the next steps' PATH. What it writes to its own
// GITHUB_OUTPUT is kept as steps.ID.outputs (for a step with an id) and
// added to the job's GITHUB_OUTPUT file, where the test reads every
// step's.
func (r *runner) bash(name, id, script string, env map[string]string) (string, int) {
	f := filepath.Join(r.temp, "step.sh")
	if err := os.WriteFile(f, []byte(script), 0o644); err != nil {
		r.t.Fatal(err)
	}
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", f)
	cmd.Dir = r.work
	cmd.Env = append(slices.Clone(r.env), "PATH="+strings.Join(append(slices.Clone(r.path), os.Getenv("PATH")), string(os.PathListSeparator)))
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+r.subst(v))
	}
	stepOutput := filepath.Join(r.temp, "step-output")
	if job := r.envFile("GITHUB_OUTPUT"); job != "" {
		if err := os.WriteFile(stepOutput, nil, 0o644); err != nil {
			r.t.Fatal(err)
		}
		cmd.Env = append(cmd.Env, "GITHUB_OUTPUT="+stepOutput)
		defer func() {
			b, _ := os.ReadFile(stepOutput)
			if len(b) == 0 {
				return
			}
			all, err := os.OpenFile(job, os.O_APPEND|os.O_WRONLY, 0o644)
			if err != nil {
				r.t.Fatal(err)
			}
			all.Write(b)
			all.Close()
			if id != "" {
				if r.stepOutputs == nil {
					r.stepOutputs = map[string]map[string]string{}
				}
				r.stepOutputs[id] = map[string]string{}
				for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
					k, v, _ := strings.Cut(l, "=")
					r.stepOutputs[id][k] = v
				}
			}
		}()
	}
	start := time.Now()
	out, err := cmd.CombinedOutput()
	took := time.Since(start).Round(time.Millisecond)
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		r.t.Fatalf("step %q: %v", name, err)
	}
	if b, err := os.ReadFile(r.envFile("GITHUB_PATH")); err == nil {
		for _, p := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if p != "" && !slices.Contains(r.path, p) {
				r.path = append([]string{p}, r.path...) // the latest first, as on a runner
			}
		}
	}
	r.t.Logf("step %q: exit %d in %v\n%s", name, code, took, out)
	return string(out), code
}

func (r *runner) envFile(name string) string {
	for _, kv := range r.env {
		if v, ok := strings.CutPrefix(kv, name+"="); ok {
			return v
		}
	}
	return ""
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=rigor", "-c", "user.email=rigor@example.com", "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

const (
	workGo = `package lab

// Work runs n*SCALE steps of a linear congruential generator.
func Work(n int) uint64 {
	x := uint64(1)
	for i := 0; i < n*SCALE; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x
}
`
	workTest = `package lab

import (
	"flag"
	"testing"
)

var size = flag.Int("size", 1, "work per operation")

var sink uint64

func TestWork(t *testing.T) {
	if Work(0) != 1 {
		t.Fatal("Work(0) != 1")
	}
}

func BenchmarkWork(b *testing.B) {
	for b.Loop() {
		sink = Work(*size)
	}
}
`
)

// fakeGH is a gh that answers gh api as GitHub's REST API would, from
// files in FAKE_GH_DIR: comments.json (every comment: id, its pull
// request, its author's login, its body) and pulls.json (each pull
// request's head commit). Comments are listed in pages (per_page, at most
// FAKE_GH_PER_PAGE), one JSON array a page as gh api --paginate prints
// them, or through --jq with jq, page by page as gh does; a POST is
// written by FAKE_GH_LOGIN (github-actions[bot] unless set), and the
// methods in FAKE_GH_DENY are answered 403, as GitHub answers a read-only
// token (a fork's pull request). Each call is logged to calls.
//
// Between two pages, a gh whose output is a pipe waits (at most 2 s) for
// the reader to go away, as a real gh fetching the next page may find it
// gone: a "gh ... | head -1" then dies of SIGPIPE (141), every time.
const fakeGH = `#!/usr/bin/env python3
import json, os, select, signal, subprocess, sys, urllib.parse

signal.signal(signal.SIGPIPE, signal.SIG_DFL)
d = os.environ["FAKE_GH_DIR"]
args = sys.argv[1:]
if not args or args[0] != "api":
    sys.exit("fake gh: only api")
args = args[1:]
method, path, body, paginate, jq = "GET", None, None, False, None
while args:
    a = args.pop(0)
    if a in ("--method", "-X"):
        method = args.pop(0)
    elif a == "-F":
        k, v = args.pop(0).split("=", 1)
        body = open(v[1:]).read() if v.startswith("@") else v
    elif a == "--paginate":
        paginate = True
    elif a == "--jq":
        jq = args.pop(0)
    elif path is None:
        path = a
    else:
        sys.exit("fake gh: unknown argument " + a)
url = urllib.parse.urlsplit(path)
parts = url.path.split("/")
with open(os.path.join(d, "calls"), "a") as f:
    f.write(method + " " + url.path + "\n")
if method in os.environ.get("FAKE_GH_DENY", "").split(","):
    print(json.dumps({"message": "Resource not accessible by integration", "status": "403"}))
    sys.stderr.write("gh: Resource not accessible by integration (HTTP 403)\n")
    sys.exit(1)

def load(name, empty):
    try:
        return json.load(open(os.path.join(d, name)))
    except FileNotFoundError:
        return empty

comments = load("comments.json", [])
def save():
    json.dump(comments, open(os.path.join(d, "comments.json"), "w"), indent=1)

def emit(page):
    if jq is None:
        sys.stdout.write(json.dumps(page) + "\n")
    else:
        sys.stdout.write(subprocess.run(["jq", "-r", jq], input=json.dumps(page), capture_output=True, text=True, check=True).stdout)
    sys.stdout.flush()

def api(c):
    return {"id": c["id"], "user": {"login": c["login"], "type": "Bot" if c["login"].endswith("[bot]") else "User"}, "body": c["body"]}

# repos/O/R/issues/N/comments, repos/O/R/issues/comments/ID, repos/O/R/pulls/N
if method == "GET" and parts[3:4] == ["issues"] and parts[5:] == ["comments"]:
    q = urllib.parse.parse_qs(url.query)
    per = min(int(q.get("per_page", ["30"])[0]), int(os.environ.get("FAKE_GH_PER_PAGE", "100")))
    mine = [api(c) for c in comments if c["pr"] == int(parts[4])]
    pages = [mine[i:i + per] for i in range(0, len(mine), per)] or [[]]
    for i, page in enumerate(pages if paginate else pages[:1]):
        if i > 0 and os.path.exists("/proc/self/fd/1") and os.readlink("/proc/self/fd/1").startswith("pipe:"):
            p = select.poll()
            p.register(1, select.POLLERR)
            p.poll(2000)
        emit(page)
elif method == "POST" and parts[3:4] == ["issues"] and parts[5:] == ["comments"]:
    c = {"id": max([c["id"] for c in comments] + [0]) + 1, "pr": int(parts[4]), "login": os.environ.get("FAKE_GH_LOGIN", "github-actions[bot]"), "body": body}
    comments.append(c)
    save()
    emit(api(c))
elif method == "PATCH" and parts[3:5] == ["issues", "comments"]:
    for c in comments:
        if c["id"] == int(parts[5]):
            if c["login"] != os.environ.get("FAKE_GH_LOGIN", "github-actions[bot]"):
                sys.stderr.write("gh: Resource not accessible by integration (HTTP 403)\n")
                sys.exit(1)
            c["body"] = body
            save()
            emit(api(c))
            break
    else:
        sys.stderr.write("gh: Not Found (HTTP 404)\n")
        sys.exit(1)
elif method == "GET" and parts[3:4] == ["pulls"]:
    pr = load("pulls.json", {}).get(parts[4])
    if pr is None:
        sys.stderr.write("gh: Not Found (HTTP 404)\n")
        sys.exit(1)
    emit(pr)
else:
    sys.exit("fake gh: unknown call " + method + " " + path)
`

// fakeComment is a comment the fake gh keeps.
type fakeComment struct {
	ID    int    `json:"id"`
	PR    int    `json:"pr"`
	Login string `json:"login"`
	Body  string `json:"body"`
}

// ghComments reads the fake gh's comments.
func ghComments(t *testing.T, dir string) []fakeComment {
	t.Helper()
	var cs []fakeComment
	b, err := os.ReadFile(filepath.Join(dir, "comments.json"))
	if os.IsNotExist(err) {
		return nil
	}
	if err == nil {
		err = json.Unmarshal(b, &cs)
	}
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// setComments gives the fake gh these comments.
func setComments(t *testing.T, dir string, cs []fakeComment) {
	t.Helper()
	b, err := json.Marshal(cs)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "comments.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestActionEndToEnd runs the action's steps, read from action.yml, as a
// runner would, on a scratch repository: a pull request whose head does
// ten times the base's work per operation, checked out shallow as
// actions/checkout does; then a push to main that keeps the history in the
// cache. It checks the job summary, the comment (posted once, then
// updated, not duplicated), the artifact's files, the outputs and the exit
// codes (1: the gate failed; 0 for an A/A push).
func TestActionEndToEnd(t *testing.T) {
	for _, tool := range []string{"git", "bash", "python3", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s", tool)
		}
	}
	a, root := readAction(t)
	if a.Runs.Using != "composite" {
		t.Fatalf("action.yml runs using %q, want composite", a.Runs.Using)
	}
	top := t.TempDir()

	// origin: main has the base; feature does ten times the work.
	origin := filepath.Join(top, "origin.git")
	seed := filepath.Join(top, "seed")
	os.MkdirAll(seed, 0o755)
	git(t, top, "init", "-q", "--bare", origin)
	git(t, seed, "init", "-q")
	write := func(scale string) {
		files := map[string]string{
			"go.mod":          "module example.com/lab\n\ngo 1.26\n",
			"lab/work.go":     strings.ReplaceAll(workGo, "SCALE", scale),
			"lab/lab_test.go": workTest,
		}
		for name, content := range files {
			os.MkdirAll(filepath.Join(seed, filepath.Dir(name)), 0o755)
			if err := os.WriteFile(filepath.Join(seed, name), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		git(t, seed, "add", "-A")
		git(t, seed, "commit", "-q", "-m", "scale "+scale)
	}
	write("1")
	git(t, seed, "commit", "-q", "--allow-empty", "-m", "another commit on main")
	base := git(t, seed, "rev-parse", "HEAD")
	git(t, seed, "checkout", "-q", "-b", "feature")
	write("10")
	git(t, seed, "commit", "-q", "--allow-empty", "-m", "more on the branch")
	git(t, seed, "remote", "add", "origin", origin)
	git(t, seed, "push", "-q", "origin", "main", "feature")

	// The checkout, as actions/checkout makes it: one commit deep.
	work := filepath.Join(top, "work")
	git(t, top, "clone", "-q", "--depth", "1", "--branch", "feature", "file://"+origin, work)
	if git(t, work, "rev-parse", "--is-shallow-repository") != "true" {
		t.Fatal("the checkout is not shallow")
	}

	temp := filepath.Join(top, "runner-temp")
	bin := filepath.Join(top, "bin")
	ghDir := filepath.Join(top, "gh")
	for _, d := range []string{temp, bin, ghDir} {
		os.MkdirAll(d, 0o755)
	}
	if err := os.WriteFile(filepath.Join(bin, "gh"), []byte(fakeGH), 0o755); err != nil {
		t.Fatal(err)
	}
	event := filepath.Join(top, "event.json")
	os.WriteFile(event, []byte(`{"pull_request": {"number": 7}}`), 0o644)
	inputs := map[string]string{}
	for k, v := range a.Inputs {
		inputs[k] = v.Default
	}
	inputs["flags"] = "--benchtime\n5ms\n--min-rounds\n8\n--max-rounds\n8\n--profile\noff"
	inputs["time"] = "2m"
	inputs["args"] = "-size\n300"
	inputs["token"] = "test-token"
	r := &runner{t: t, root: root, work: work, temp: temp, cache: filepath.Join(top, "cache"), inputs: inputs, uploads: map[string][]string{}, roots: map[string]string{},
		github: map[string]string{"action_path": root, "event_name": "pull_request", "ref_name": "7/merge", "run_id": "41", "run_attempt": "1", "token": "test-token"},
		path:   []string{bin},
	}
	os.MkdirAll(r.cache, 0o755)
	files := map[string]string{}
	for _, k := range []string{"GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_PATH"} {
		files[k] = filepath.Join(top, strings.ToLower(k))
		os.WriteFile(files[k], nil, 0o644)
		r.env = append(r.env, k+"="+files[k])
	}
	r.env = append(r.env, "RUNNER_TEMP="+temp, "GITHUB_EVENT_PATH="+event, "GITHUB_EVENT_NAME=pull_request", "GITHUB_BASE_REF=main",
		"GITHUB_REPOSITORY=example/lab", "GITHUB_REF_NAME=7/merge", "GITHUB_SHA="+git(t, work, "rev-parse", "HEAD"), "FAKE_GH_DIR="+ghDir,
		"HOME="+os.Getenv("HOME"), "GOPATH="+goEnv(t, "GOPATH"), "GOCACHE="+goEnv(t, "GOCACHE"), "GOMODCACHE="+goEnv(t, "GOMODCACHE"),
		"GOFLAGS="+os.Getenv("GOFLAGS"), "GOTOOLCHAIN=local", "GOPROXY="+goEnv(t, "GOPROXY"))

	// The pull request comes from a fork: its token is read-only, and
	// GitHub answers the comment with 403. That is a warning: the gate
	// and the upload do not depend on the comment.
	r.env = append(r.env, "FAKE_GH_DENY=POST,PATCH")
	out, code := r.steps(a)
	if code != 1 {
		t.Errorf("the gate exited %d, want 1 (Work regressed tenfold, beyond 5%%)\n%s", code, out)
	}
	if c := r.codes["Pull-request comment"]; c != 0 || !strings.Contains(r.outputs["Pull-request comment"], "::warning title=rigor::could not comment on #7: gh: Resource not accessible by integration (HTTP 403)") {
		t.Errorf("a comment answered 403: the step exited %d, want 0 and a warning\n%s", c, r.outputs["Pull-request comment"])
	}
	if cs := ghComments(t, ghDir); len(cs) != 0 {
		t.Errorf("comments with a read-only token: %+v", cs)
	}
	summary, _ := os.ReadFile(files["GITHUB_STEP_SUMMARY"])
	if !strings.Contains(string(summary), "regressed") || !strings.Contains(string(summary), "Work") || !strings.Contains(string(summary), "-size 300") {
		t.Errorf("the job summary lacks the regression or the arguments:\n%s", summary)
	}
	outputs, _ := os.ReadFile(files["GITHUB_OUTPUT"])
	for _, want := range []string{"exit-code=1\n", "base=" + base + "\n"} {
		if !strings.Contains(string(outputs), want) {
			t.Errorf("outputs lack %q:\n%s", want, outputs)
		}
	}
	var uploaded []string
	for _, f := range r.uploads["rigor-41-1"] {
		uploaded = append(uploaded, filepath.Base(f))
	}
	slices.Sort(uploaded)
	if want := []string{"new.txt", "old.txt", "report.html", "result.txt", "rigor.md", "run.json"}; !slices.Equal(uploaded, want) {
		t.Errorf("the artifact holds %q, want %q", uploaded, want)
	}
	if result, _ := os.ReadFile(filepath.Join(temp, "rigor", "result.txt")); string(result) != "exit-code=1\nmax-regression=5\npull-request=7\n" {
		t.Errorf("result.txt:\n%s", result)
	}
	if html, _ := os.ReadFile(filepath.Join(temp, "rigor", "report.html")); !strings.Contains(string(html), "<svg") {
		t.Errorf("report.html has no chart")
	}

	// The split form: a comment job, on another runner and without the
	// checkout, with a token that may comment, downloads the benchmark
	// job's artifact and posts it (mode comment): nothing is built and
	// nothing of the pull request's runs. Then once more (a second push
	// to the pull request): the comment is updated, not duplicated.
	r.env = slices.DeleteFunc(r.env, func(kv string) bool { return strings.HasPrefix(kv, "FAKE_GH_DENY=") })
	cj := r.job(filepath.Join(top, "comment-job"))
	artifact := filepath.Join(top, "artifact")
	if root := r.roots["rigor-41-1"]; root != filepath.Join(temp, "rigor") {
		t.Errorf("the artifact's root is %s, want runner.temp/rigor", root)
	}
	download(t, r.uploads["rigor-41-1"], filepath.Join(temp, "rigor"), artifact)
	cj.inputs["mode"], cj.inputs["report-dir"] = "comment", artifact
	for i, report := range []string{"Work", "second report\n"} {
		if i > 0 {
			os.WriteFile(filepath.Join(artifact, "rigor.md"), []byte(report), 0o644)
		}
		if out, code := cj.steps(a); code != 0 || !slices.Equal(cj.ran, []string{"Check the inputs", "Post the report of a benchmark job"}) {
			t.Errorf("comment job %d: exit %d, steps %q\n%s", i+1, code, cj.ran, out)
		}
		cs := ghComments(t, ghDir)
		if len(cs) != 1 {
			t.Fatalf("comment job %d: %d comments, want 1: %+v", i+1, len(cs), cs)
		}
		if c := cs[0]; c.PR != 7 || c.Login != "github-actions[bot]" || !strings.HasPrefix(c.Body, "<!-- rigor-action -->\n**rigor**: failed: a benchmark regressed by more than 5%.") || !strings.Contains(c.Body, report) {
			t.Errorf("comment job %d: the comment on #%d by %s:\n%s", i+1, c.PR, c.Login, c.Body)
		}
	}
	for _, f := range []string{"GITHUB_OUTPUT", "GITHUB_ENV"} {
		if b, _ := os.ReadFile(cj.envFile(f)); len(b) != 0 {
			t.Errorf("the comment job wrote %s:\n%s", f, b)
		}
	}
	calls, _ := os.ReadFile(filepath.Join(ghDir, "calls"))
	if want := "GET repos/example/lab/issues/7/comments\nPOST repos/example/lab/issues/7/comments\n" +
		"GET repos/example/lab/issues/7/comments\nPOST repos/example/lab/issues/7/comments\n" +
		"GET repos/example/lab/issues/7/comments\nPATCH repos/example/lab/issues/comments/1\n"; string(calls) != want {
		t.Errorf("gh calls:\n%s\nwant:\n%s", calls, want)
	}

	// A push to main, one commit after the base (an empty commit: the
	// same build, an A/A run), keeping the history in the cache twice.
	git(t, work, "fetch", "-q", "origin", "main")
	git(t, work, "checkout", "-q", "-B", "main", "FETCH_HEAD")
	git(t, work, "commit", "-q", "--allow-empty", "-m", "docs only")
	os.WriteFile(event, []byte(fmt.Sprintf(`{"before": %q}`, base)), 0o644)
	r.inputs["history"] = "cache"
	r.inputs["bench"] = "Work"
	// An A/A run fails a 5% gate by chance at rigor's stated rate: at 8
	// rounds, 2/256 of A/A runs have every round slower on one side
	// (p = 0.0078), and about 2% regress significantly (measured: 6 gate
	// failures in 480 A/A runs of these flags, quiet, busy and starved;
	// docs/ab-aa.md). Four A/A pushes below would fail about one CI run in
	// 15 (one did, +30.55% on a starved machine). At alpha 0.005, below
	// the smallest p-value 8 rounds can reach, no time verdict is
	// significant, so these pushes check the history steps, not chance.
	r.inputs["flags"] += "\n--alpha\n0.005"
	r.github["event_name"], r.github["ref_name"] = "push", "main"
	r.env = slices.DeleteFunc(r.env, func(kv string) bool {
		return strings.HasPrefix(kv, "GITHUB_BASE_REF=") || strings.HasPrefix(kv, "GITHUB_EVENT_NAME=") || strings.HasPrefix(kv, "GITHUB_REF_NAME=")
	})
	r.env = append(r.env, "GITHUB_EVENT_NAME=push", "GITHUB_REF_NAME=main")
	for i := range 2 {
		r.github["run_id"] = fmt.Sprint(50 + i)
		out, code = r.steps(a)
		if code != 0 {
			t.Errorf("push %d: the gate exited %d, want 0 (an A/A run)\n%s", i+1, code, out)
		}
	}
	if _, err := os.Stat(filepath.Join(r.cache, "rigor.db")); err != nil {
		t.Errorf("the cache holds no history: %v", err)
	}
	index, err := os.ReadFile(filepath.Join(temp, "rigor", "pages", "index.html"))
	if err != nil || !strings.Contains(string(index), "Work") {
		t.Errorf("the history's pages: %v\n%s", err, index)
	}
	if runs, _ := filepath.Glob(filepath.Join(temp, "rigor", "pages", "run-*.html")); len(runs) < 2 {
		t.Errorf("%d run pages after two pushes, want 2 (the cache carried the first run)", len(runs))
	}
	if len(r.uploads["rigor-history-51-1"]) == 0 {
		t.Errorf("the history's pages were not uploaded")
	}

	// The same pushes keeping the history on a branch instead: the store
	// and the pages are committed to rigor-history in the origin, through
	// the checkout's own remote (whose credentials actions/checkout
	// keeps), and the second push finds the first's run there.
	// The origin accepts a push only with what the checkout's local
	// config adds (here a receive-pack that passes a credential), as
	// GitHub accepts one only with the token actions/checkout writes
	// into the checkout's config: a push from another repository fails.
	hook := filepath.Join(origin, "hooks", "pre-receive")
	os.WriteFile(hook, []byte("#!/bin/sh\n[ \"$RIGOR_TEST_CREDENTIAL\" = ok ] || { echo 'no credential' >&2; exit 1; }\n"), 0o755)
	git(t, work, "config", "remote.origin.receivepack", "env RIGOR_TEST_CREDENTIAL=ok git-receive-pack")
	r.inputs["history"], r.inputs["history-branch"] = "branch", "rigor-history"
	os.RemoveAll(filepath.Join(temp, "rigor", "history"))
	for i := range 2 {
		r.github["run_id"] = fmt.Sprint(70 + i)
		if out, code := r.steps(a); code != 0 {
			t.Errorf("push %d with history branch: the gate exited %d, want 0\n%s", i+1, code, out)
		}
	}
	tree := git(t, origin, "ls-tree", "--name-only", "rigor-history")
	if !strings.Contains(tree, "rigor.db") || !strings.Contains(tree, "index.html") {
		t.Errorf("the history branch holds:\n%s", tree)
	}
	var runPages int
	for _, name := range strings.Fields(tree) {
		if strings.HasPrefix(name, "run-") {
			runPages++
		}
	}
	if runPages < 2 {
		t.Errorf("%d run pages on the history branch after two pushes, want 2 (the branch carried the first run):\n%s", runPages, tree)
	}

	// A pull request whose head fails its tests: refused before timing,
	// exit 2, and the summary and comment say why (rigor writes no
	// report then).
	wrong := strings.ReplaceAll(strings.Replace(workGo, "x := uint64(1)", "x := uint64(2)", 1), "SCALE", "1")
	os.WriteFile(filepath.Join(work, "lab", "work.go"), []byte(wrong), 0o644)
	git(t, work, "commit", "-q", "-am", "faster and wrong")
	os.WriteFile(event, []byte(`{"pull_request": {"number": 8}}`), 0o644)
	os.WriteFile(files["GITHUB_STEP_SUMMARY"], nil, 0o644)
	r.inputs["history"] = "none"
	r.github["event_name"], r.github["ref_name"], r.github["run_id"] = "pull_request", "8/merge", "60"
	r.env = append(r.env, "GITHUB_EVENT_NAME=pull_request", "GITHUB_BASE_REF=main", "GITHUB_REF_NAME=8/merge")
	if out, code := r.steps(a); code != 2 {
		t.Errorf("failing tests: the gate exited %d, want 2\n%s", code, out)
	}
	summary, _ = os.ReadFile(files["GITHUB_STEP_SUMMARY"])
	if !strings.Contains(string(summary), "no comparison (exit 2)") || !strings.Contains(string(summary), "fail (TestWork)") {
		t.Errorf("the summary of a refused run:\n%s", summary)
	}
	if cs := ghComments(t, ghDir); len(cs) != 2 || cs[1].PR != 8 || !strings.Contains(cs[1].Body, "no verdict (rigor exited 2)") {
		t.Errorf("the refused run's comment: %+v", cs)
	}
}

// job is another job's runner, on another machine: its own runner.temp,
// an empty workspace (no checkout), its own GITHUB_OUTPUT and GITHUB_ENV,
// the same inputs to start with, the same fake gh.
func (r *runner) job(dir string) *runner {
	r.t.Helper()
	j := *r
	j.temp, j.work = filepath.Join(dir, "temp"), filepath.Join(dir, "workspace")
	j.inputs, j.github, j.uploads, j.roots = maps.Clone(r.inputs), maps.Clone(r.github), map[string][]string{}, map[string]string{}
	j.path = slices.Clone(r.path)
	j.env = slices.DeleteFunc(slices.Clone(r.env), func(kv string) bool {
		return strings.HasPrefix(kv, "RUNNER_TEMP=") || strings.HasPrefix(kv, "GITHUB_OUTPUT=") || strings.HasPrefix(kv, "GITHUB_ENV=")
	})
	j.env = append(j.env, "RUNNER_TEMP="+j.temp)
	for _, d := range []string{j.temp, j.work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			r.t.Fatal(err)
		}
	}
	for _, k := range []string{"GITHUB_OUTPUT", "GITHUB_ENV"} {
		f := filepath.Join(dir, strings.ToLower(k))
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			r.t.Fatal(err)
		}
		j.env = append(j.env, k+"="+f)
	}
	return &j
}

// download does what actions/download-artifact does with an artifact
// of these files, uploaded from under root: the same files under dst.
func download(t *testing.T, files []string, root, dst string) {
	t.Helper()
	if len(files) == 0 {
		t.Fatal("no artifact to download")
	}
	for _, f := range files {
		rel, err := filepath.Rel(root, f)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Join(dst, filepath.Dir(rel)), 0o755)
		if err := os.WriteFile(filepath.Join(dst, rel), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func goEnv(t *testing.T, key string) string {
	out, err := exec.Command("go", "env", key).Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// workflowFile is a workflow as far as TestExampleWorkflow reads it.
type workflowFile struct {
	On          map[string]any `yaml:"on"`
	Permissions map[string]string
	Jobs        map[string]struct {
		If          string            `yaml:"if"`
		Needs       any               `yaml:"needs"`
		Permissions map[string]string `yaml:"permissions"`
		Strategy    struct {
			FailFast *bool          `yaml:"fail-fast"`
			Matrix   map[string]any `yaml:"matrix"`
		} `yaml:"strategy"`
		Steps []struct {
			Uses string            `yaml:"uses"`
			Run  string            `yaml:"run"`
			With map[string]string `yaml:"with"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

var pin = regexp.MustCompile(`rigorbench/rigor@([^\s#]+)`)

// TestExampleWorkflow: the example workflows (docs/github-actions.yml,
// its workflow_run variant and the sharded one) are in the split form of
// docs/action-security.md, and give the action only inputs it has
// (actionlint checks a workflow, not a remote action's inputs): no
// trigger that runs the pull request's code with a write token; a job
// that checks out or runs code has only read permissions, a checkout
// without persisted credentials, and the action without token or
// comment; a job that can write checks out nothing, runs no script and
// uses the action in mode comment only, whatever the gate said; the
// action is pinned to a commit, the same everywhere (the README too),
// which has every input the examples give it.
func TestExampleWorkflow(t *testing.T) {
	a, root := readAction(t)
	pins, given := map[string]bool{}, map[string]bool{}
	for _, name := range []string{"github-actions.yml", "github-actions-comment.yml", "github-actions-shards.yml"} {
		b, err := os.ReadFile(filepath.Join(root, "docs", name))
		if err != nil {
			t.Fatal(err)
		}
		var wf workflowFile
		if err := yaml.Unmarshal(b, &wf); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, ev := range []string{"pull_request_target", "issue_comment"} {
			if _, ok := wf.On[ev]; ok {
				t.Errorf("%s runs on %s", name, ev)
			}
		}
		if len(wf.Permissions) != 0 {
			t.Errorf("%s: workflow-wide permissions %v, want {} (each job asks for its own)", name, wf.Permissions)
		}
		used := false
		for jobName, job := range wf.Jobs {
			where := name + ", job " + jobName
			var checkout, runs, writes bool
			for _, v := range job.Permissions {
				writes = writes || v == "write"
			}
			for _, st := range job.Steps {
				switch {
				case strings.HasPrefix(st.Uses, "actions/checkout@"):
					checkout = true
					if st.With["persist-credentials"] != "false" {
						t.Errorf("%s: actions/checkout keeps its credentials in .git/config", where)
					}
				case st.Run != "":
					runs = true
				case strings.HasPrefix(st.Uses, "rigorbench/rigor@"):
					used = true
					ref := strings.TrimPrefix(st.Uses, "rigorbench/rigor@")
					if !regexp.MustCompile(`^[0-9a-f]{40}$`).MatchString(ref) {
						t.Errorf("%s: the action is pinned to %q, not a commit", where, ref)
					}
					pins[ref] = true
					for k := range st.With {
						given[k] = true
						if _, ok := a.Inputs[k]; !ok {
							t.Errorf("%s: the example gives the action an input it lacks: %s", where, k)
						}
					}
					if _, ok := st.With["token"]; ok {
						t.Errorf("%s: the example gives the action a token of its own", where)
					}
					if st.With["mode"] == "comment" {
						continue
					}
					// Mode run runs the pull request's code; mode merge
					// builds rigor and reads what that code wrote (the
					// shards' artifacts), and never comments.
					runs = true
					if st.With["mode"] != "merge" && st.With["comment"] != "false" {
						t.Errorf("%s: the job that runs the pull request's code comments (comment: %q)", where, st.With["comment"])
					}
				}
			}
			if writes && (checkout || runs) {
				t.Errorf("%s: a job that can write (%v) checks out or runs code", where, job.Permissions)
			}
			if (checkout || runs) && len(job.Permissions) == 0 {
				t.Errorf("%s: a job that runs code inherits the workflow's permissions", where)
			}
			if job.Needs != nil && !strings.Contains(job.If, "!cancelled()") {
				t.Errorf("%s: a job after the gate that does not run when the gate failed (if: %s)", where, job.If)
			}
		}
		if !used {
			t.Errorf("%s does not use the action", name)
		}
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range pin.FindAllStringSubmatch(string(readme), -1) {
		pins[m[1]] = true
	}
	if len(pins) != 1 {
		t.Errorf("the examples and the README pin the action to %d commits, want one: %v", len(pins), slices.Collect(maps.Keys(pins)))
	}
	// The pinned commit has every input the examples give the action (a
	// clone without that commit cannot tell).
	for ref := range pins {
		out, err := exec.Command("git", "-C", root, "show", ref+":action.yml").Output()
		if err != nil {
			t.Logf("the pinned commit %s is not in this clone: its inputs are not checked", ref)
			continue
		}
		var pinned actionFile
		if err := yaml.Unmarshal(out, &pinned); err != nil {
			t.Fatalf("action.yml at %s: %v", ref, err)
		}
		for k := range given {
			if _, ok := pinned.Inputs[k]; !ok {
				t.Errorf("action.yml at the pinned %s has no input %s", ref, k)
			}
		}
	}
}

// commentRunner sets up what the comment step needs, without running
// rigor: a report and the gate's result where the compare step leaves them,
// a pull request's event and the fake gh. It returns the runner and the
// fake gh's directory.
func commentRunner(t *testing.T, pr int, code int) (*runner, string) {
	t.Helper()
	for _, tool := range []string{"bash", "python3"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s", tool)
		}
	}
	a, root := readAction(t)
	top := t.TempDir()
	temp, bin, ghDir := filepath.Join(top, "runner-temp"), filepath.Join(top, "bin"), filepath.Join(top, "gh")
	out := filepath.Join(temp, "rigor")
	for _, d := range []string{out, bin, ghDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	event := filepath.Join(top, "event.json")
	for name, content := range map[string]string{
		filepath.Join(bin, "gh"):         fakeGH,
		filepath.Join(out, "rigor.md"):   "### rigor: the report\n",
		filepath.Join(out, "result.txt"): fmt.Sprintf("exit-code=%d\nmax-regression=5\npull-request=%d\n", code, pr),
		event:                            fmt.Sprintf(`{"pull_request": {"number": %d}}`, pr),
	} {
		if err := os.WriteFile(name, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	inputs := map[string]string{}
	for k, v := range a.Inputs {
		inputs[k] = v.Default
	}
	inputs["token"] = "test-token"
	r := &runner{t: t, root: root, work: top, temp: temp, cache: filepath.Join(top, "cache"), inputs: inputs, uploads: map[string][]string{}, roots: map[string]string{},
		github: map[string]string{"action_path": root, "event_name": "pull_request", "ref_name": fmt.Sprintf("%d/merge", pr), "run_id": "41", "run_attempt": "1", "token": "test-token"},
		path:   []string{bin},
	}
	r.env = []string{"RUNNER_TEMP=" + temp, "GITHUB_EVENT_PATH=" + event, "GITHUB_EVENT_NAME=pull_request", "GITHUB_REPOSITORY=example/lab",
		"FAKE_GH_DIR=" + ghDir, "HOME=" + os.Getenv("HOME")}
	return r, ghDir
}

// step runs the run step of action.yml named name, as steps would, and
// returns its output and exit code.
func (r *runner) step(name string) (string, int) {
	r.t.Helper()
	a, _ := readAction(r.t)
	for _, st := range a.Runs.Steps {
		if st.Name == name {
			if !r.cond(st.If) {
				r.t.Fatalf("step %q would not run (if: %s)", name, st.If)
			}
			return r.bash(st.Name, st.ID, r.subst(st.Run), st.Env)
		}
	}
	r.t.Fatalf("action.yml has no step %q", name)
	return "", 0
}

// TestCommentHijack: a comment that starts with the action's marker but
// was written by someone else (anyone who can comment can plant one) is
// neither edited nor taken for the action's: the report is posted under
// the bot's name, and later runs update the bot's comment alone.
func TestCommentHijack(t *testing.T) {
	r, ghDir := commentRunner(t, 7, 1)
	planted := fakeComment{ID: 1, PR: 7, Login: "mallory", Body: "<!-- rigor-action -->\n**rigor**: passed. Merge away."}
	elsewhere := fakeComment{ID: 2, PR: 3, Login: "github-actions[bot]", Body: "<!-- rigor-action -->\nanother pull request's report"}
	setComments(t, ghDir, []fakeComment{planted, elsewhere})

	for i, report := range []string{"### first report\n", "### second report\n"} {
		os.WriteFile(filepath.Join(r.temp, "rigor", "rigor.md"), []byte(report), 0o644)
		if out, code := r.step("Pull-request comment"); code != 0 {
			t.Fatalf("comment step %d exited %d:\n%s", i+1, code, out)
		}
		cs := ghComments(t, ghDir)
		if len(cs) != 3 || cs[0] != planted || cs[1] != elsewhere {
			t.Fatalf("after comment step %d, the comments are %+v; want the planted one and the other pull request's untouched, and one more", i+1, cs)
		}
		if c := cs[2]; c.PR != 7 || c.Login != "github-actions[bot]" || !strings.HasPrefix(c.Body, "<!-- rigor-action -->\n**rigor**: failed: a benchmark regressed by more than 5%.") || !strings.Contains(c.Body, report) {
			t.Errorf("after comment step %d, the bot's comment on #%d by %s:\n%s", i+1, c.PR, c.Login, c.Body)
		}
	}
	calls, _ := os.ReadFile(filepath.Join(ghDir, "calls"))
	if strings.Contains(string(calls), "PATCH repos/example/lab/issues/comments/1\n") || !strings.Contains(string(calls), "PATCH repos/example/lab/issues/comments/3\n") {
		t.Errorf("gh calls:\n%s", calls)
	}

	// A comment-author that is no GitHub login is refused, not pasted
	// into anything.
	r.inputs["comment-author"] = `x")) or true or ((""`
	if out, code := r.step("Pull-request comment"); code != 2 || !strings.Contains(out, "comment-author") {
		t.Errorf("a comment-author that is no login: exit %d, want 2\n%s", code, out)
	}
}

// TestCommentTwoPages: two comments of the bot's that start with the
// marker, on two pages of the listing (a race of two runs can leave
// them): the step updates the oldest and adds none, and reading the
// listing's second page does not fail it (a "gh | head -1" under pipefail
// exits 141 when gh writes that page after head has gone).
func TestCommentTwoPages(t *testing.T) {
	r, ghDir := commentRunner(t, 7, 0)
	r.env = append(r.env, "FAKE_GH_PER_PAGE=1")
	bot := "github-actions[bot]"
	setComments(t, ghDir, []fakeComment{
		{ID: 1, PR: 7, Login: bot, Body: "<!-- rigor-action -->\nold report"},
		{ID: 2, PR: 7, Login: "reviewer", Body: "looks good"},
		{ID: 3, PR: 7, Login: bot, Body: "<!-- rigor-action -->\nthe duplicate"},
	})
	if out, code := r.step("Pull-request comment"); code != 0 {
		t.Fatalf("the comment step exited %d:\n%s", code, out)
	}
	cs := ghComments(t, ghDir)
	if len(cs) != 3 || !strings.HasPrefix(cs[0].Body, "<!-- rigor-action -->\n**rigor**: passed.") || cs[2].Body != "<!-- rigor-action -->\nthe duplicate" {
		t.Errorf("comments: %+v; want the oldest of the bot's updated, nothing added", cs)
	}
}

// TestOptionInjection: a base or history-branch input that starts with
// "-" would reach git as an option (--upload-pack=CMD runs CMD when
// fetching over file:// or ssh): the steps refuse it, exit 2, one line,
// and run nothing.
func TestOptionInjection(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	r, _ := commentRunner(t, 7, 0)
	top := filepath.Dir(r.temp)
	origin, seed := filepath.Join(top, "origin.git"), filepath.Join(top, "seed")
	os.MkdirAll(seed, 0o755)
	git(t, top, "init", "-q", "--bare", origin)
	git(t, seed, "init", "-q")
	for _, msg := range []string{"one", "two", "three"} {
		git(t, seed, "commit", "-q", "--allow-empty", "-m", msg)
	}
	git(t, seed, "push", "-q", origin, "main")
	r.work = filepath.Join(top, "work")
	git(t, top, "clone", "-q", "--depth", "1", "file://"+origin, r.work)
	r.github["event_name"] = "push"
	r.env = append(r.env, "GITHUB_EVENT_NAME=push")

	pwned := filepath.Join(top, "pwned")
	evil := "--upload-pack=touch " + pwned + ";git-upload-pack"
	r.inputs["base"] = evil
	out, code := r.step("Fetch the base's history")
	if code != 2 || !strings.Contains(out, `base: --upload-pack=`) || !strings.Contains(out, `starts with "-"`) {
		t.Errorf("a base that starts with -: exit %d, want 2 and a line that says why\n%s", code, out)
	}
	r.inputs["base"] = ""
	r.inputs["history"], r.inputs["history-branch"] = "branch", evil
	out, code = r.step("Restore the history (branch)")
	if code != 2 || !strings.Contains(out, "history-branch: --upload-pack=") {
		t.Errorf("a history-branch that starts with -: exit %d, want 2 and a line that says why\n%s", code, out)
	}
	if _, err := os.Stat(pwned); err == nil {
		t.Errorf("an input ran a command through git's --upload-pack")
	}
	r.inputs["history-branch"] = "no such..branch"
	if out, code := r.step("Save the history (branch)"); code != 2 || !strings.Contains(out, "is not a branch name") {
		t.Errorf("a history-branch that is no branch name: exit %d, want 2\n%s", code, out)
	}
	// A base given the ordinary way still works.
	r.inputs["base"] = "HEAD~2"
	if out, code := r.step("Fetch the base's history"); code != 0 {
		t.Errorf("base HEAD~2: exit %d\n%s", code, out)
	}
}

// TestComment403: a comment that GitHub refuses (403: a fork's pull
// request, whose token is read-only) is a warning, and the step exits 0.
// (TestActionEndToEnd checks that the gate and the upload do not depend
// on it either.)
func TestComment403(t *testing.T) {
	r, ghDir := commentRunner(t, 7, 0)
	r.env = append(r.env, "FAKE_GH_DENY=POST")
	out, code := r.step("Pull-request comment")
	if code != 0 || !strings.Contains(out, "::warning title=rigor::could not comment on #7: gh: Resource not accessible by integration (HTTP 403)") {
		t.Errorf("a 403 on the comment: exit %d, want 0 and a warning\n%s", code, out)
	}
	if cs := ghComments(t, ghDir); len(cs) != 0 {
		t.Errorf("comments: %+v", cs)
	}
}

// TestCommentWorkflowRun: mode comment in a workflow_run workflow, whose
// token can comment on a fork's pull request. The artifact was written
// by a job that ran the pull request's code, so nothing in it is trusted:
// the pull request it names is commented on only if that pull request's
// head is the commit the benchmark run measured, values of the wrong
// shape are dropped, a link is not followed, the report is cut at 60,000
// bytes, and nothing of it is run or written to GITHUB_ENV or
// GITHUB_OUTPUT.
func TestCommentWorkflowRun(t *testing.T) {
	r, ghDir := commentRunner(t, 7, 0)
	top := filepath.Dir(r.temp)
	head := strings.Repeat("ab", 20)
	event := filepath.Join(top, "event.json")
	writeEvent := func(ev, sha string) {
		b, _ := json.Marshal(map[string]any{"workflow_run": map[string]any{"event": ev, "head_sha": sha, "pull_requests": []any{}}})
		os.WriteFile(event, b, 0o644)
	}
	writeEvent("pull_request", head)
	os.WriteFile(filepath.Join(ghDir, "pulls.json"), []byte(`{"7": {"number": 7, "head": {"sha": "`+head+`"}}, "9": {"number": 9, "head": {"sha": "`+strings.Repeat("cd", 20)+`"}}}`), 0o644)
	r.github["event_name"] = "workflow_run"
	r.env = slices.DeleteFunc(r.env, func(kv string) bool { return strings.HasPrefix(kv, "GITHUB_EVENT_NAME=") })
	r.env = append(r.env, "GITHUB_EVENT_NAME=workflow_run")
	artifact := filepath.Join(top, "artifact")
	os.MkdirAll(artifact, 0o755)
	r.inputs["mode"], r.inputs["report-dir"] = "comment", artifact
	for _, k := range []string{"GITHUB_OUTPUT", "GITHUB_ENV"} {
		f := filepath.Join(top, strings.ToLower(k))
		os.WriteFile(f, nil, 0o644)
		r.env = append(r.env, k+"="+f)
	}
	pwned := filepath.Join(top, "pwned")
	post := func(report, result string) (string, int) {
		t.Helper()
		os.Remove(filepath.Join(artifact, "rigor.md"))
		os.WriteFile(filepath.Join(artifact, "rigor.md"), []byte(report), 0o644)
		os.WriteFile(filepath.Join(artifact, "result.txt"), []byte(result), 0o644)
		return r.step("Post the report of a benchmark job")
	}

	// The artifact names #9, whose head is another commit: no comment.
	if out, code := post("### the report\n", "exit-code=0\nmax-regression=5\npull-request=9\n"); code != 0 || !strings.Contains(out, "::warning title=rigor::pull request #9's head is not the commit") {
		t.Errorf("an artifact that names another pull request: exit %d\n%s", code, out)
	}
	// A pull-request number of the wrong shape: no comment.
	if out, code := post("### the report\n", "pull-request=7 $(touch "+pwned+")\n"); code != 0 || !strings.Contains(out, "the artifact names no pull request") {
		t.Errorf("a pull-request that is no number: exit %d\n%s", code, out)
	}
	// The run was for a push: no comment.
	writeEvent("push", head)
	if out, code := post("### the report\n", "pull-request=7\n"); code != 0 || !strings.Contains(out, "not for a pull request") {
		t.Errorf("a push's run: exit %d\n%s", code, out)
	}
	writeEvent("pull_request", head)
	if cs := ghComments(t, ghDir); len(cs) != 0 {
		t.Fatalf("comments posted: %+v", cs)
	}

	// #7 at the commit measured: posted, with the report cut, and an exit
	// code of the wrong shape taken for none.
	big := "### the report\n" + strings.Repeat("| BenchmarkWork | +1% |\n", 5000)
	out, code := post(big, "exit-code=0$(touch "+pwned+")\nmax-regression=`touch "+pwned+"`\npull-request=7\n")
	if code != 0 {
		t.Fatalf("posting #7's report: exit %d\n%s", code, out)
	}
	cs := ghComments(t, ghDir)
	if len(cs) != 1 || cs[0].PR != 7 {
		t.Fatalf("comments: %+v", cs)
	}
	body := cs[0].Body
	if !strings.HasPrefix(body, "<!-- rigor-action -->\n**rigor**: no verdict (the benchmark job left no exit code).\n\n### the report\n") ||
		len(body) > 60200 || !strings.HasSuffix(body, "the whole report is in the workflow run's artifact)*\n") {
		t.Errorf("the comment (%d bytes) begins\n%.200s\nand ends\n%s", len(body), body, body[max(0, len(body)-200):])
	}
	if strings.Contains(out, "BenchmarkWork") {
		t.Errorf("the untrusted report reached the log:\n%s", out)
	}

	// A report that is a link (to a file of the comment job's runner) is
	// not followed.
	secret := filepath.Join(top, "secret")
	os.WriteFile(secret, []byte("the runner's secret\n"), 0o644)
	os.Remove(filepath.Join(artifact, "rigor.md"))
	if err := os.Symlink(secret, filepath.Join(artifact, "rigor.md")); err != nil {
		t.Fatal(err)
	}
	if out, code := r.step("Post the report of a benchmark job"); code != 0 || !strings.Contains(out, "no report to post") {
		t.Errorf("a report that is a link: exit %d\n%s", code, out)
	}
	if cs := ghComments(t, ghDir); len(cs) != 1 || strings.Contains(cs[0].Body, "secret") {
		t.Errorf("comments after a linked report: %+v", cs)
	}

	if _, err := os.Stat(pwned); err == nil {
		t.Errorf("a value in the artifact was run")
	}
	for _, k := range []string{"GITHUB_OUTPUT", "GITHUB_ENV"} {
		if b, _ := os.ReadFile(r.envFile(k)); len(b) != 0 {
			t.Errorf("mode comment wrote %s:\n%s", k, b)
		}
	}
}

// TestCheckInputs: inputs of the wrong kind, and mode run under the
// events whose token can write to the repository whatever the workflow
// asks (pull_request_target, issue_comment), are refused before anything
// is built: exit 2, one line that says why.
func TestCheckInputs(t *testing.T) {
	for _, c := range []struct {
		inputs map[string]string
		event  string
		want   string
	}{
		{map[string]string{"mode": "both"}, "pull_request", "mode: both is none of run, comment, merge"},
		{map[string]string{"comment": "yes"}, "pull_request", "comment: yes is neither true nor false"},
		{map[string]string{"history": "db"}, "push", "history: db is none of none, cache, branch"},
		{map[string]string{"mode": "comment"}, "pull_request", "mode comment needs report-dir"},
		{nil, "pull_request_target", "mode run refuses to run under pull_request_target"},
		{nil, "issue_comment", "mode run refuses to run under issue_comment"},
		{map[string]string{"base": "-x"}, "pull_request", `base: -x starts with "-"`},
		{map[string]string{"history": "branch", "history-branch": "a b"}, "push", "history-branch: a b is not a branch name"},
		{map[string]string{"shard": "4/4"}, "pull_request", "shard: 4/4 is not INDEX/COUNT with INDEX from 0 to COUNT-1"},
		{map[string]string{"shard": "1"}, "pull_request", "shard: 1 is not INDEX/COUNT"},
		{map[string]string{"shard": "-1/2"}, "pull_request", "shard: -1/2 is not INDEX/COUNT"},
		{map[string]string{"shard": "01/2"}, "pull_request", "shard: 01/2 is not INDEX/COUNT"},
		{map[string]string{"shard": "0/2 $(touch pwned)"}, "pull_request", "shard: 0/2 $(touch pwned) is not INDEX/COUNT"},
		{map[string]string{"shard": "0/0"}, "pull_request", "shard: 0/0 is not INDEX/COUNT"},
		{map[string]string{"shard": "0/2", "history": "cache"}, "push", "history: a shard measures a part of the suite"},
		{map[string]string{"mode": "merge"}, "pull_request", "mode merge needs shards-dir"},
		{map[string]string{"mode": "merge", "shards-dir": "shards", "shard": "0/2"}, "pull_request", "shard: only mode run measures a shard"},
		{map[string]string{"allow-missing": "yes"}, "pull_request", "allow-missing: yes is neither true nor false"},
	} {
		r, _ := commentRunner(t, 7, 0)
		maps.Copy(r.inputs, c.inputs)
		r.env = append(r.env, "GITHUB_EVENT_NAME="+c.event)
		out, code := r.step("Check the inputs")
		if code != 2 || !strings.Contains(out, c.want) || strings.Count(strings.TrimSpace(out), "\n") > 0 {
			t.Errorf("inputs %v on %s: exit %d, want 2 and one line with %q\n%s", c.inputs, c.event, code, c.want, out)
		}
	}
	r, _ := commentRunner(t, 7, 0)
	if out, code := r.step("Check the inputs"); code != 0 {
		t.Errorf("the default inputs: exit %d\n%s", code, out)
	}
	// A shard's index and count name its artifact.
	outputs := filepath.Join(r.temp, "github_output")
	os.WriteFile(outputs, nil, 0o644)
	r.env = append(r.env, "GITHUB_OUTPUT="+outputs)
	for shard, want := range map[string]string{"3/4": "3-of-4", "0/1": "0-of-1", "11/12": "11-of-12"} {
		r.inputs["shard"] = shard
		if out, code := r.step("Check the inputs"); code != 0 || r.stepOutputs["check"]["shard"] != want {
			t.Errorf("shard %s: exit %d, output shard %q, want %q\n%s", shard, code, r.stepOutputs["check"]["shard"], want, out)
		}
	}
}

// TestNoComparisonFence: when rigor writes no report (exit 2), the step
// quotes its stderr in a code block, and that text can hold the pull
// request's (a compiler's errors quote its code): a line of backticks in
// it must not close the block, or what follows is rendered as Markdown in
// the summary and the comment (@mentions, links).
func TestNoComparisonFence(t *testing.T) {
	r, _ := commentRunner(t, 7, 0)
	out := filepath.Join(r.temp, "rigor")
	os.Remove(filepath.Join(out, "rigor.md"))
	os.WriteFile(filepath.Join(out, "state"), []byte("base=0123456789abcdef\n"), 0o644)
	rigor := "#!/bin/sh\nprintf '%s\\n' 'lab/work.go:3: syntax error near' '```' '@octocat ![x](https://evil.example/x.png)' '````' >&2\nexit 2\n"
	if err := os.WriteFile(filepath.Join(r.path[0], "rigor"), []byte(rigor), 0o755); err != nil {
		t.Fatal(err)
	}
	if log, code := r.step("rigor ab against the base"); code != 0 {
		t.Fatalf("the compare step exited %d\n%s", code, log)
	}
	md, _ := os.ReadFile(filepath.Join(out, "rigor.md"))
	lines := strings.Split(strings.TrimSuffix(string(md), "\n"), "\n")
	if len(lines) < 4 || lines[0] != "### rigor: no comparison (exit 2)" {
		t.Fatalf("rigor.md:\n%s", md)
	}
	fence := lines[2]
	if strings.Trim(fence, "`") != "" || len(fence) < 3 || lines[len(lines)-1] != fence {
		t.Fatalf("rigor.md's block is not fenced:\n%s", md)
	}
	inner := lines[3 : len(lines)-1]
	for _, l := range inner {
		if strings.HasPrefix(l, fence) {
			t.Errorf("a line of the quoted text closes the block (fence %q):\n%s", fence, md)
		}
	}
	if !slices.Contains(inner, "@octocat ![x](https://evil.example/x.png)") {
		t.Errorf("the quoted text is not inside the block:\n%s", md)
	}
}

// shardJob is a runner for one job of a sharded workflow
// (docs/github-actions-shards.yml), each on its own machine: its own
// runner.temp, GITHUB_OUTPUT, GITHUB_ENV, GITHUB_PATH and job summary;
// with a branch, a shallow checkout of it as actions/checkout makes one,
// else an empty workspace (the merge and comment jobs check out nothing).
// Every job starts from the action's default inputs and the given ones.
func shardJob(t *testing.T, a *actionFile, root, top, name, origin, branch string, inputs map[string]string) *runner {
	t.Helper()
	dir := filepath.Join(top, name)
	temp, work, bin := filepath.Join(dir, "runner-temp"), filepath.Join(dir, "workspace"), filepath.Join(top, "bin")
	for _, d := range []string{temp, bin, filepath.Join(top, "gh")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(bin, "gh"), []byte(fakeGH), 0o755); err != nil {
		t.Fatal(err)
	}
	sha := ""
	if branch != "" {
		git(t, top, "clone", "-q", "--depth", "1", "--branch", branch, "file://"+origin, work)
		sha = git(t, work, "rev-parse", "HEAD")
	} else if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	// rigor, built once for every job (as setup-go's cache would keep
	// the build): the install step's go install finds it up to date
	// instead of linking it again, seconds a job on a loaded machine.
	built := filepath.Join(top, "rigor-bin", "rigor")
	if _, err := os.Stat(built); err != nil {
		cmd := exec.Command("go", "install", "./cmd/rigor")
		cmd.Dir, cmd.Env = root, append(os.Environ(), "GOBIN="+filepath.Dir(built))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go install ./cmd/rigor: %v\n%s", err, out)
		}
	}
	if b, err := os.ReadFile(built); err != nil {
		t.Fatal(err)
	} else if err := os.MkdirAll(filepath.Join(temp, "rigor-bin"), 0o755); err != nil {
		t.Fatal(err)
	} else if err := os.WriteFile(filepath.Join(temp, "rigor-bin", "rigor"), b, 0o755); err != nil {
		t.Fatal(err)
	}
	event := filepath.Join(dir, "event.json")
	if err := os.WriteFile(event, []byte(`{"pull_request": {"number": 7}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	in := map[string]string{}
	for k, v := range a.Inputs {
		in[k] = v.Default
	}
	in["token"] = "test-token"
	maps.Copy(in, inputs)
	r := &runner{t: t, root: root, work: work, temp: temp, cache: filepath.Join(dir, "cache"), inputs: in, uploads: map[string][]string{}, roots: map[string]string{},
		github: map[string]string{"action_path": root, "event_name": "pull_request", "ref_name": "7/merge", "run_id": "41", "run_attempt": "1", "token": "test-token"},
		path:   []string{bin},
	}
	for _, k := range []string{"GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_STEP_SUMMARY", "GITHUB_PATH"} {
		f := filepath.Join(dir, strings.ToLower(k))
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		r.env = append(r.env, k+"="+f)
	}
	r.env = append(r.env, "RUNNER_TEMP="+temp, "GITHUB_EVENT_PATH="+event, "GITHUB_EVENT_NAME=pull_request", "GITHUB_BASE_REF=main",
		"GITHUB_REPOSITORY=example/shards", "GITHUB_REF_NAME=7/merge", "GITHUB_SHA="+sha, "FAKE_GH_DIR="+filepath.Join(top, "gh"),
		"HOME="+os.Getenv("HOME"), "GOPATH="+goEnv(t, "GOPATH"), "GOCACHE="+goEnv(t, "GOCACHE"), "GOMODCACHE="+goEnv(t, "GOMODCACHE"),
		"GOFLAGS="+os.Getenv("GOFLAGS"), "GOTOOLCHAIN=local", "GOPROXY="+goEnv(t, "GOPROXY"))
	return r
}

// TestActionShards runs the sharded workflow of
// docs/github-actions-shards.yml with the action's steps, as runners
// would: a generated module of 6 benchmarks (8 rows) measured as 2 shards,
// each a job on its own machine in mode run with shard I/2 that uploads
// its results directory; a merge job that downloads those artifacts
// (mode merge), merges them with rigor merge and gates once; and a
// comment job that posts the merged artifact (mode comment). A pull
// request that triples one benchmark's work fails the merged gate
// (max-regression 50%, far beyond what 10 paired rounds of noise move a
// benchmark) though no shard job failed; one that only halves another
// benchmark's work passes; without one shard's artifact (or with one
// holding a symbolic link, left out as untrusted), or with one cut short,
// the merged gate fails naming that shard, unless allow-missing; with no
// artifact at all there is no verdict (exit 2). The shards of a branch run
// at once; the whole test takes about 35 s on a loaded 2-core machine.
func TestActionShards(t *testing.T) {
	for _, tool := range []string{"git", "bash", "python3", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s", tool)
		}
	}
	a, root := readAction(t)
	top := t.TempDir()

	// origin: main has the base; regress triples B003's work (and halves
	// B005's); faster only halves B005's.
	origin, seed := filepath.Join(top, "origin.git"), filepath.Join(top, "seed")
	os.MkdirAll(seed, 0o755)
	git(t, top, "init", "-q", "--bare", origin)
	git(t, seed, "init", "-q")
	commit := func(files map[string]string, msg string) {
		for name, content := range files {
			os.MkdirAll(filepath.Join(seed, filepath.Dir(name)), 0o755)
			if err := os.WriteFile(filepath.Join(seed, name), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		git(t, seed, "add", "-A")
		git(t, seed, "commit", "-q", "-m", msg)
	}
	base, regressed := suite.Revisions(6, map[int]float64{3: 3, 5: 0.5})
	_, faster := suite.Revisions(6, map[int]float64{5: 0.5})
	commit(base, "base")
	git(t, seed, "checkout", "-q", "-b", "regress")
	commit(regressed, "B003 does three times the work")
	git(t, seed, "checkout", "-q", "-b", "faster", "main")
	commit(faster, "B005 does half the work")
	git(t, seed, "push", "-q", "file://"+origin, "main", "regress", "faster")

	shardInputs := map[string]string{
		"comment":        "false",
		"max-regression": "50",
		"time":           "1m",
		// 10 rounds: with Holm over 8 rows, 10 rounds in one direction
		// (p = 2/1024) are significant.
		"flags": "--benchtime\n2ms\n--min-rounds\n10\n--max-rounds\n10\n--layouts\n1\n--profile\noff\n--no-check",
	}
	shardJob(t, a, root, top, "build", origin, "", nil) // rigor, once
	// shard runs shard i/2's job on branch and returns the directory of
	// its artifact, as the merge job downloads it.
	shard := func(t *testing.T, branch string, i int) string {
		in := maps.Clone(shardInputs)
		in["shard"] = fmt.Sprintf("%d/2", i)
		job := fmt.Sprintf("%s-shard-%d", branch, i)
		r := shardJob(t, a, root, top, job, origin, branch, in)
		out, code := r.steps(a)
		if code != 0 {
			t.Errorf("%s: the shard job's gate exited %d, want 0 (a shard leaves the gate to the merge)\n%s", job, code, out)
		}
		for _, st := range []string{"Pull-request comment", "Upload the report, run.json and the gate's result", "rigor merge of the shards"} {
			if slices.Contains(r.ran, st) {
				t.Errorf("%s ran the step %q", job, st)
			}
		}
		name := fmt.Sprintf("rigor-41-shard-%d-of-2", i)
		if len(r.uploads) != 1 || len(r.uploads[name]) == 0 {
			t.Fatalf("%s uploaded %v, want the artifact %s", job, slices.Collect(maps.Keys(r.uploads)), name)
		}
		var names []string
		for _, f := range r.uploads[name] {
			rel, _ := filepath.Rel(r.roots[name], f)
			names = append(names, rel)
		}
		slices.Sort(names)
		if want := []string{"new.txt", "old.txt", "run.json"}; !slices.Equal(names, want) {
			t.Errorf("%s's artifact holds %q, want its results directory %q", job, names, want)
		}
		dir := filepath.Join(top, branch+"-artifacts", name)
		download(t, r.uploads[name], r.roots[name], dir)
		return dir
	}
	// The shards of a branch run at once, as on their own runners.
	shards := func(branch string) []string {
		t.Helper()
		dirs := make([]string, 2)
		t.Run(branch, func(t *testing.T) {
			for i := range 2 {
				t.Run(fmt.Sprint("shard-", i), func(t *testing.T) {
					t.Parallel()
					dirs[i] = shard(t, branch, i)
				})
			}
		})
		if t.Failed() {
			t.FailNow()
		}
		return dirs
	}
	// merge runs the merge job on the artifacts in dirs (downloaded
	// again into its own shards-dir), then the comment job on its
	// artifact; it returns the merge step's log, the gate's exit code,
	// the merged report and the comment.
	run := 0
	merge := func(dirs []string, inputs map[string]string, link string, comment bool) (string, int, string, string) {
		t.Helper()
		run++
		name := fmt.Sprintf("merge-%d", run)
		in := map[string]string{"mode": "merge", "max-regression": "50"}
		maps.Copy(in, inputs)
		m := shardJob(t, a, root, top, name, origin, "", in)
		shardsDir := filepath.Join(m.temp, "shards")
		m.inputs["shards-dir"] = shardsDir
		os.MkdirAll(shardsDir, 0o755)
		for _, d := range dirs {
			if err := os.CopyFS(filepath.Join(shardsDir, filepath.Base(d)), os.DirFS(d)); err != nil {
				t.Fatal(err)
			}
		}
		if link != "" {
			// A hostile shard's artifact whose run.json is a link (to a
			// file of the merge job's runner): left out, not read.
			f := filepath.Join(shardsDir, link, "run.json")
			os.Remove(f)
			if err := os.Symlink(filepath.Join(dirs[0], "run.json"), f); err != nil {
				t.Fatal(err)
			}
		}
		_, code := m.steps(a)
		if want := []string{"Check the inputs", "Set up Go for rigor", "Install rigor", "rigor merge of the shards", "Job summary", "Upload the report, run.json and the gate's result", "Gate"}; !slices.Equal(m.ran, want) {
			t.Errorf("%s ran %q, want %q", name, m.ran, want)
		}
		log := m.outputs["rigor merge of the shards"]
		if ws, _ := os.ReadDir(m.work); len(ws) != 0 {
			t.Errorf("%s wrote to its workspace (it checks out nothing): %v", name, ws)
		}
		summary, _ := os.ReadFile(m.envFile("GITHUB_STEP_SUMMARY"))
		report, _ := os.ReadFile(filepath.Join(m.temp, "rigor", "rigor.md"))
		if string(summary) != string(report) || len(report) == 0 {
			t.Errorf("%s: the job summary is not the merged report:\n%s", name, summary)
		}
		// The comment job, as in the unsharded workflow: the merged
		// artifact has the name it downloads.
		art := m.uploads["rigor-41-1"]
		if !comment {
			return log, code, string(report), ""
		}
		var names []string
		for _, f := range art {
			names = append(names, filepath.Base(f))
		}
		slices.Sort(names)
		if want := []string{"report.html", "result.txt", "rigor.md"}; code != 2 && !slices.Equal(names, want) {
			t.Errorf("%s's artifact holds %q, want %q", name, names, want)
		}
		c := shardJob(t, a, root, top, "comment-"+name, origin, "", map[string]string{"mode": "comment", "report-dir": filepath.Join(top, "comment-"+name, "artifact")})
		download(t, art, m.roots["rigor-41-1"], c.inputs["report-dir"])
		if out, code := c.steps(a); code != 0 {
			t.Errorf("comment job after %s: exit %d\n%s", name, code, out)
		}
		cs := ghComments(t, filepath.Join(top, "gh"))
		if len(cs) != 1 {
			t.Fatalf("after %s: %d comments, want one, updated: %+v", name, len(cs), cs)
		}
		return log, code, string(report), cs[0].Body
	}

	start := time.Now()
	reg := shards("regress")
	t.Logf("two shard jobs: %v", time.Since(start))
	log, code, report, comment := merge(reg, nil, "", true)
	if code != 1 || !strings.Contains(log, "rigor: gate: example.com/shards/p1.B003") {
		t.Errorf("B003 three times slower: the merged gate exited %d, want 1 naming B003\n%s", code, log)
	}
	if !strings.Contains(report, "Merged from 2 results: shard 0/2 on") || !strings.Contains(report, "B003") {
		t.Errorf("the merged report:\n%s", report)
	}
	if !strings.HasPrefix(comment, "<!-- rigor-action -->\n**rigor**: failed: a benchmark regressed by more than 50%.") {
		t.Errorf("the comment:\n%.300s", comment)
	}

	fast := shards("faster")
	log, code, report, comment = merge(fast, nil, "", true)
	if code != 0 || !strings.Contains(report, "B005") || !strings.HasPrefix(comment, "<!-- rigor-action -->\n**rigor**: passed.") {
		t.Errorf("B005 twice as fast, nothing slower: the merged gate exited %d, want 0\n%s\n%s\n%.300s", code, log, report, comment)
	}

	// A shard's artifact missing: the gate fails, naming the shard, in
	// the log (its workflow commands off), the report and the comment.
	log, code, report, comment = merge(fast[:1], nil, "", true)
	stop := regexp.MustCompile(`(?s)::stop-commands::([0-9a-f]{32})\n(.*)::([0-9a-f]{32})::\n`).FindStringSubmatch(log)
	if code != 1 || stop == nil || stop[1] != stop[3] || !strings.Contains(stop[2], "rigor: gate: shard 1/2 is missing") {
		t.Errorf("shard 1/2's artifact missing: the merged gate exited %d, want 1, and the log's gate line between stop-commands and its end\n%s", code, log)
	}
	if !strings.Contains(report, "Shard 1/2 is missing") || !strings.HasPrefix(comment, "<!-- rigor-action -->\n**rigor**: failed: a shard is missing or failed (the report says which).") {
		t.Errorf("shard 1/2's artifact missing: the report\n%s\nthe comment\n%.300s", report, comment)
	}
	// allow-missing passes it, the report still saying so.
	if _, code, report, _ = merge(fast[:1], map[string]string{"allow-missing": "true"}, "", false); code != 0 || !strings.Contains(report, "Shard 1/2 is missing") {
		t.Errorf("allow-missing with shard 1/2 missing: exit %d, want 0\n%s", code, report)
	}
	// A shard's artifact holding a link: left out, so that shard is
	// missing.
	log, code, _, _ = merge(fast, nil, filepath.Base(fast[1]), false)
	if code != 1 || !strings.Contains(log, "holds a symbolic link: left out") || !strings.Contains(log, "rigor: gate: shard 1/2 is missing") {
		t.Errorf("a shard's artifact holding a link: exit %d, want 1 and the shard missing\n%s", code, log)
	}
	// A shard cut short (its run.json has no end, as a killed run
	// leaves it): the gate fails, naming it.
	cut := filepath.Join(top, "cut", filepath.Base(fast[1]))
	if err := os.CopyFS(cut, os.DirFS(fast[1])); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(cut, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cutRun map[string]any
	if err := json.Unmarshal(b, &cutRun); err != nil {
		t.Fatal(err)
	}
	delete(cutRun, "end")
	if b, err = json.Marshal(cutRun); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(cut, "run.json"), b, 0o644)
	log, code, report, comment = merge([]string{fast[0], cut}, nil, "", true)
	if code != 1 || !strings.Contains(log, "rigor: gate: shard 1/2 failed") || !strings.Contains(report, "Shard 1/2 failed") ||
		!strings.HasPrefix(comment, "<!-- rigor-action -->\n**rigor**: failed: a shard is missing or failed (the report says which).") {
		t.Errorf("shard 1/2 cut short: exit %d, want 1 naming it\n%s\n%s\n%.300s", code, log, report, comment)
	}
	// No artifact at all (every shard failed before uploading): no
	// verdict.
	if log, code, report, _ = merge(nil, nil, "", false); code != 2 || !strings.Contains(report, "no comparison (exit 2)") || !strings.Contains(report, "no shard's results in") {
		t.Errorf("no shard's artifact: exit %d, want 2\n%s\n%s", code, log, report)
	}
}

// TestShardsWorkflow: docs/github-actions-shards.yml is the sharded
// workflow that TestActionShards runs: a matrix of shards 0/4 to 3/4 that
// do not cancel each other, each in mode run with shard
// ${{ matrix.shard }}/4 and no comment; a merge job after them all, even
// when one failed, that downloads every artifact the shards' upload step
// names (one directory each) into the action's shards-dir, in mode merge
// with the gate; and a comment job after the merge that downloads the
// artifact the merge uploads. (TestExampleWorkflow checks its permissions,
// checkouts and pins.)
func TestShardsWorkflow(t *testing.T) {
	a, root := readAction(t)
	b, err := os.ReadFile(filepath.Join(root, "docs", "github-actions-shards.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf workflowFile
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatal(err)
	}
	// The names the action's upload steps give their artifacts, with
	// the shard's part a pattern.
	var shardArtifact, reportArtifact string
	for _, st := range a.Runs.Steps {
		switch st.Name {
		case "Upload the shard's results directory":
			shardArtifact = strings.Replace(st.With["name"], "${{ steps.check.outputs.shard }}", "*", 1)
		case "Upload the report, run.json and the gate's result":
			reportArtifact = st.With["name"]
		}
	}
	if !strings.HasSuffix(shardArtifact, "-shard-*") || reportArtifact == "" {
		t.Fatalf("action.yml's artifacts: %q and %q", shardArtifact, reportArtifact)
	}
	// uses lists the job's steps that use prefix, with their inputs.
	uses := func(job, prefix string) []map[string]string {
		var out []map[string]string
		for _, st := range wf.Jobs[job].Steps {
			if strings.HasPrefix(st.Uses, prefix) {
				out = append(out, st.With)
			}
		}
		return out
	}
	needs := func(job string) string { s, _ := wf.Jobs[job].Needs.(string); return s }

	shard := wf.Jobs["shard"]
	if shard.Strategy.FailFast == nil || *shard.Strategy.FailFast {
		t.Errorf("the shards' matrix does not set fail-fast: false (a failed shard would cancel the others)")
	}
	if got := fmt.Sprint(shard.Strategy.Matrix["shard"]); got != "[0 1 2 3]" {
		t.Errorf("matrix.shard is %s, want [0 1 2 3] (rigor ab --shard counts from 0)", got)
	}
	if r := uses("shard", "rigorbench/rigor@"); len(r) != 1 || r[0]["shard"] != "${{ matrix.shard }}/4" || r[0]["comment"] != "false" || r[0]["mode"] != "" {
		t.Errorf("the shard job's action: %v, want mode run with shard ${{ matrix.shard }}/4 and comment false", r)
	}

	merge := wf.Jobs["merge"]
	if needs("merge") != "shard" || !strings.Contains(merge.If, "!cancelled()") {
		t.Errorf("the merge job: needs %v, if %q; want after every shard, failed ones too", merge.Needs, merge.If)
	}
	dl, r := uses("merge", "actions/download-artifact@"), uses("merge", "rigorbench/rigor@")
	if len(dl) != 1 || dl[0]["pattern"] != shardArtifact || dl[0]["merge-multiple"] == "true" || dl[0]["name"] != "" {
		t.Errorf("the merge job downloads %v, want every artifact named %s, each into its own directory", dl, shardArtifact)
	}
	if len(r) != 1 || r[0]["mode"] != "merge" || len(dl) != 1 || r[0]["shards-dir"] != dl[0]["path"] || r[0]["max-regression"] == "" {
		t.Errorf("the merge job's action: %v, want mode merge on the downloaded directory (%v), with the gate", r, dl)
	}
	if len(uses("merge", "actions/checkout@")) != 0 {
		t.Errorf("the merge job checks out the pull request")
	}

	if needs("comment") != "merge" {
		t.Errorf("the comment job needs %v, want merge", wf.Jobs["comment"].Needs)
	}
	dl, r = uses("comment", "actions/download-artifact@"), uses("comment", "rigorbench/rigor@")
	if len(dl) != 1 || dl[0]["name"] != reportArtifact || len(r) != 1 || r[0]["mode"] != "comment" || r[0]["report-dir"] != dl[0]["path"] {
		t.Errorf("the comment job downloads %v and runs %v; want the merged artifact %s posted in mode comment", dl, r, reportArtifact)
	}
}
