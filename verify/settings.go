package verify

import (
	"path"

	"github.com/ryekit/rye/config"
	"github.com/ryekit/rye/gitrepo"
	"github.com/ryekit/rye/space"
)

// SettingsOptions say which run the settings are for.
type SettingsOptions struct {
	// TrustRef is the command line's trust ref.
	TrustRef string
	// Gate marks a run whose answer gates a change (verify, check, bundle
	// verify): without TrustRef it is anchored to the user's
	// verify.trust_ref. A project's verify.trust_ref is never honoured.
	Gate bool
	// Staged reads the project's file from the git index, what the commit
	// being made will hold.
	Staged bool
}

// LoadSettings reads the configuration a run may rely on (config.Settings):
// the user's file, the project's file (from the working tree, or from the
// index when staged), and, when the run is anchored to a trust ref, the
// project's file at that ref: the only project settings that can loosen a
// check are those a change under review could not write.
func LoadSettings(ss *space.Spaces, o SettingsOptions) (*config.Settings, error) {
	s, _, err := loadSettings(ss, o)
	return s, err
}

// loadSettings is LoadSettings, with the project's repository when it
// opened it (the trust store is read from the same one).
func loadSettings(ss *space.Spaces, o SettingsOptions) (*config.Settings, *Git, error) {
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
		return nil, nil, ErrNoProject
	}
	repo, aiPrefix, err := OpenRepo(ss.Project.Root)
	if err != nil {
		field := FieldTrustRef
		if s.TrustRef == "" {
			field = FieldStaged
		}
		return nil, nil, requestError(field, err)
	}
	g := &Git{Repo: repo, AIPrefix: aiPrefix}
	prefix := path.Dir(aiPrefix)
	if s.TrustRef != "" {
		files, err := repo.Tree(s.TrustRef, path.Join(prefix, path.Dir(config.Path)), config.MaxSize)
		if err != nil {
			return nil, nil, requestError(FieldTrustRef, err)
		}
		if s.Trusted, err = configIn(files, s.TrustRef+":", FieldTrustRef); err != nil {
			return nil, nil, err
		}
	}
	if o.Staged {
		files, err := repo.Index(path.Join(prefix, path.Dir(config.Path)), config.MaxSize)
		if err != nil {
			return nil, nil, requestError(FieldStaged, err)
		}
		// The index holds what the commit will: its file, or none.
		if s.Project, err = configIn(files, "index:", FieldStaged); err != nil {
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
		return nil, requestError(field, &space.PathError{Path: name, Err: space.ErrSymlink})
	case f.TooLarge:
		return nil, requestError(field, &space.PathError{Path: name, Err: space.ErrTooLarge})
	}
	return config.Parse(name, f.Data)
}
