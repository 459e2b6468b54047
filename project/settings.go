package project

import (
	"path"

	"github.com/ryekit/rye/config"
	"github.com/ryekit/rye/gitrepo"
	"github.com/ryekit/rye/space"
	"github.com/ryekit/rye/verify"
)

// loadSettings reads the configuration a run may rely on
// (config.Settings): the user's file, the project's file (from the
// working tree, or from the index when staged), and, when the run is
// anchored to a trust ref, the project's file at that ref: the only
// project settings that can loosen a check are those a change under
// review could not write. It returns the project's repository when it
// opened it, so that the trust store is read from the same one.
func loadSettings(ss *space.Spaces, o Options) (*config.Settings, *verify.Git, error) {
	var userRoot, projectRoot string
	if ss.User != nil {
		userRoot = ss.User.Root
	}
	if ss.Project != nil {
		projectRoot = ss.Project.Root
	}
	s, err := config.Load(userRoot, projectRoot)
	if err != nil {
		return nil, nil, err
	}
	s.TrustRef = o.TrustRef
	if s.TrustRef == "" && o.Gate {
		s.TrustRef = s.UserTrustRef()
	}
	if s.TrustRef == "" && !o.Staged {
		return s, nil, nil
	}
	if ss.Project == nil {
		return nil, nil, verify.ErrNoProject
	}
	field := verify.FieldTrustRef
	if s.TrustRef == "" {
		field = verify.FieldStaged
	}
	repo, aiPrefix, err := verify.OpenRepo(ss.Project.Root)
	if err != nil {
		return nil, nil, verify.RequestErrorOf(field, err)
	}
	g := &verify.Git{Repo: repo, AIPrefix: aiPrefix}
	prefix := path.Dir(aiPrefix)
	if s.TrustRef != "" {
		files, err := repo.Tree(s.TrustRef, path.Join(prefix, path.Dir(config.Path)), config.MaxSize)
		if err != nil {
			return nil, nil, verify.RequestErrorOf(verify.FieldTrustRef, err)
		}
		if s.Trusted, err = configIn(files, s.TrustRef+":", verify.FieldTrustRef); err != nil {
			return nil, nil, err
		}
	}
	if o.Staged {
		files, err := repo.Index(path.Join(prefix, path.Dir(config.Path)), config.MaxSize)
		if err != nil {
			return nil, nil, verify.RequestErrorOf(verify.FieldStaged, err)
		}
		// The index holds what the commit will: its file, or none.
		if s.Project, err = configIn(files, "index:", verify.FieldStaged); err != nil {
			return nil, nil, err
		}
	}
	return s, g, nil
}

// configIn parses the configuration file among files read from git (keyed
// by their path below .ai/config): nil when there is none.
func configIn(files map[string]gitrepo.File, where, field string) (*config.Config, error) {
	f, ok := files[path.Base(config.Path)]
	name := where + config.Path
	switch {
	case !ok:
		return nil, nil
	case f.Symlink:
		return nil, verify.RequestErrorOf(field, &space.PathError{Path: name, Err: space.ErrSymlink})
	case f.TooLarge:
		return nil, verify.RequestErrorOf(field, &space.PathError{Path: name, Err: space.ErrTooLarge})
	}
	return config.Parse(name, f.Data)
}
