package deploy

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// job is the part of a batch/v1 Job the checks read.
type job struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Spec       struct {
		CompletionMode string `yaml:"completionMode"`
		Completions    *int   `yaml:"completions"`
		Parallelism    *int   `yaml:"parallelism"`
		Template       struct {
			Spec struct {
				RestartPolicy string `yaml:"restartPolicy"`
				Containers    []struct {
					Command []string `yaml:"command"`
					Args    []string `yaml:"args"`
					Env     []struct {
						Name      string `yaml:"name"`
						ValueFrom struct {
							FieldRef struct {
								FieldPath string `yaml:"fieldPath"`
							} `yaml:"fieldRef"`
						} `yaml:"valueFrom"`
					} `yaml:"env"`
					VolumeMounts []struct {
						Name      string `yaml:"name"`
						MountPath string `yaml:"mountPath"`
					} `yaml:"volumeMounts"`
				} `yaml:"containers"`
				Volumes []struct {
					Name string `yaml:"name"`
					PVC  struct {
						ClaimName string `yaml:"claimName"`
					} `yaml:"persistentVolumeClaim"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

func readJob(t *testing.T, path string) *job {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var j job
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	if err := dec.Decode(&j); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if j.APIVersion != "batch/v1" || j.Kind != "Job" {
		t.Fatalf("%s: %s %s, want a batch/v1 Job", path, j.APIVersion, j.Kind)
	}
	if n := len(j.Spec.Template.Spec.Containers); n != 1 {
		t.Fatalf("%s: %d containers, want 1", path, n)
	}
	return &j
}

// flag returns the value of --name=value or --name value in args.
func flag(args []string, name string) (string, bool) {
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			return v, true
		}
		if a == "--"+name && i+1 < len(args) {
			return args[i+1], true
		}
	}
	return "", false
}

// claim returns the PVC mounted at path in the job's pod.
func claim(j *job, path string) string {
	ps := j.Spec.Template.Spec
	for _, m := range ps.Containers[0].VolumeMounts {
		if m.MountPath != path {
			continue
		}
		for _, v := range ps.Volumes {
			if v.Name == m.Name {
				return v.PVC.ClaimName
			}
		}
	}
	return ""
}

// TestManifests checks the sharded build: an Indexed Job whose N pods each
// run builddb on shard $(JOB_COMPLETION_INDEX)/N into a file on the shared
// volume, and a merge Job that reads exactly those N files from the same
// volume.
func TestManifests(t *testing.T) {
	b := readJob(t, "builddb-job.yaml")
	s := b.Spec
	if s.CompletionMode != "Indexed" {
		t.Errorf("builddb job: completionMode %q, want Indexed", s.CompletionMode)
	}
	if s.Completions == nil || s.Parallelism == nil || *s.Completions != *s.Parallelism || *s.Completions < 1 {
		t.Fatalf("builddb job: completions %v, parallelism %v: want both N", s.Completions, s.Parallelism)
	}
	n := *s.Completions
	c := s.Template.Spec.Containers[0]
	args := append(append([]string(nil), c.Command...), c.Args...)
	if len(args) < 2 || args[0] != "pleat" || args[1] != "builddb" {
		t.Fatalf("builddb job runs %v, want pleat builddb", args)
	}
	shard, ok := flag(args, "shard")
	if want := fmt.Sprintf("$(JOB_COMPLETION_INDEX)/%d", n); !ok || shard != want {
		t.Errorf("builddb job: --shard %q, want %q", shard, want)
	}
	envOK := false
	for _, e := range c.Env {
		envOK = envOK || e.Name == "JOB_COMPLETION_INDEX" && e.ValueFrom.FieldRef.FieldPath == "metadata.annotations['batch.kubernetes.io/job-completion-index']"
	}
	if !envOK {
		t.Errorf("builddb job: JOB_COMPLETION_INDEX is not declared from the completion-index annotation (needed to expand it in args)")
	}
	if jobs, _ := flag(args, "jobs"); jobs != "1" {
		t.Errorf("builddb job: --jobs %q, want 1 (one CPU requested per pod)", jobs)
	}
	out, ok := flag(args, "out")
	if !ok || !strings.Contains(out, "$(JOB_COMPLETION_INDEX)") || !strings.HasPrefix(out, "/data/") {
		t.Fatalf("builddb job: --out %q, want a file per index on /data", out)
	}
	vol := claim(b, "/data")
	if vol == "" {
		t.Fatalf("builddb job: no volume claim mounted at /data")
	}
	if s.Template.Spec.RestartPolicy != "OnFailure" {
		t.Errorf("builddb job: restartPolicy %q, want OnFailure (a restarted pod continues its journal)", s.Template.Spec.RestartPolicy)
	}

	m := readJob(t, "merge-job.yaml")
	if m.Spec.CompletionMode == "Indexed" || (m.Spec.Completions != nil && *m.Spec.Completions != 1) {
		t.Errorf("merge job: want one pod, not indexed")
	}
	mc := m.Spec.Template.Spec.Containers[0]
	margs := append(append([]string(nil), mc.Command...), mc.Args...)
	if len(margs) < 3 || margs[0] != "pleat" || margs[1] != "builddb" || margs[2] != "merge" {
		t.Fatalf("merge job runs %v, want pleat builddb merge", margs)
	}
	if o, ok := flag(margs, "out"); !ok || o == "" {
		t.Errorf("merge job: no --out")
	}
	var inputs []string
	for i := 3; i < len(margs); i++ {
		if strings.HasPrefix(margs[i], "--") {
			if !strings.Contains(margs[i], "=") {
				i++
			}
			continue
		}
		inputs = append(inputs, margs[i])
	}
	if len(inputs) != n {
		t.Fatalf("merge job: %d inputs, the build has %d shards", len(inputs), n)
	}
	pat := regexp.MustCompile("^" + strings.ReplaceAll(regexp.QuoteMeta(out), regexp.QuoteMeta("$(JOB_COMPLETION_INDEX)"), `(\d+)`) + "$")
	seen := make([]bool, n)
	for _, in := range inputs {
		g := pat.FindStringSubmatch(in)
		if g == nil {
			t.Errorf("merge job input %q is not a shard file %q", in, out)
			continue
		}
		k, _ := strconv.Atoi(g[1])
		if k >= n || seen[k] {
			t.Errorf("merge job input %q: index out of range or repeated", in)
			continue
		}
		seen[k] = true
	}
	if got := claim(m, "/data"); got != vol {
		t.Errorf("merge job mounts claim %q at /data, the build %q", got, vol)
	}
}
