// Package deploy holds the Kubernetes manifests that build a wrinkle
// database in shards (builddb-job.yaml, an Indexed Job: pod i runs
// `pleat builddb --shard i/N`), merge the shards (merge-job.yaml) on a
// shared volume (pvc.yaml), and the image they run (Dockerfile). It has
// no Go code: its test parses the manifests and checks that they agree.
package deploy
