package security

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/quarry-search/quarry/searchcore"
	"github.com/quarry-search/quarry/searchcore/eserr"
)

const minPasswordLength = 6

// User is a principal of the realm chain.
type User struct {
	Username string         `json:"username"`
	Roles    []string       `json:"roles"`
	FullName *string        `json:"full_name"`
	Email    *string        `json:"email"`
	Metadata map[string]any `json:"metadata"`
	Enabled  bool           `json:"enabled"`
}

// userRecord is a stored user: the public fields and the bcrypt hash.
type userRecord struct {
	User
	PasswordHash string `json:"password_hash,omitempty"`
	Reserved     bool   `json:"reserved,omitempty"`
}

func (u *User) normalize() {
	if u.Roles == nil {
		u.Roles = []string{}
	}
	if u.Metadata == nil {
		u.Metadata = map[string]any{}
	}
}

// PutUserRequest is the body of the put user API.
type PutUserRequest struct {
	Password     *string
	PasswordHash *string
	Roles        []string
	FullName     *string
	Email        *string
	Metadata     map[string]any
	Enabled      *bool
}

// ParsePutUser parses a put user body (ES parse and validation errors).
func ParsePutUser(name string, body []byte) (*PutUserRequest, error) {
	req := &PutUserRequest{}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, eserr.Errorf(eserr.Invalid, "parse_exception", "failed to parse add user request for user [%s]: expected an object", name)
	}
	for _, k := range sortedKeys(m) {
		v := m[k]
		fieldErr := func(want string) error {
			return eserr.Errorf(eserr.Invalid, "parse_exception", "expected field [%s] to be of type %s, but found [%s] instead", k, want, jsonKind(v))
		}
		switch k {
		case "password":
			if json.Unmarshal(v, &req.Password) != nil || req.Password == nil {
				return nil, fieldErr("string")
			}
		case "password_hash", "passwordHash":
			if json.Unmarshal(v, &req.PasswordHash) != nil || req.PasswordHash == nil {
				return nil, fieldErr("string")
			}
		case "roles":
			l, ok := stringList(v)
			if !ok {
				return nil, fieldErr("array of strings")
			}
			req.Roles = l
		case "full_name", "fullName":
			if jsonKind(v) != "VALUE_NULL" && json.Unmarshal(v, &req.FullName) != nil {
				return nil, fieldErr("string")
			}
		case "email":
			if jsonKind(v) != "VALUE_NULL" && json.Unmarshal(v, &req.Email) != nil {
				return nil, fieldErr("string")
			}
		case "metadata":
			if jsonKind(v) != "START_OBJECT" || json.Unmarshal(v, &req.Metadata) != nil {
				return nil, fieldErr("object")
			}
		case "enabled":
			if json.Unmarshal(v, &req.Enabled) != nil || req.Enabled == nil {
				return nil, fieldErr("boolean")
			}
		default:
			return nil, eserr.Errorf(eserr.Invalid, "parse_exception", "failed to parse add user request. unexpected field [%s]", k)
		}
	}
	return req, nil
}

// ValidateUsername checks a user name (1 to 1024 printable ASCII
// characters, no leading or trailing whitespace).
func ValidateUsername(name string) error {
	if err := validateName("Valid user", name, 1024); err != nil {
		return eserr.ValidationError("Valid usernames must be at least 1 and no more than 1024 characters. They can contain alphanumeric characters (a-z, A-Z, 0-9), spaces, punctuation, and printable symbols in the Basic Latin (ASCII) block. Leading or trailing whitespace is not allowed.")
	}
	return nil
}

func (s *Service) loadUser(ctx context.Context, name string) (*userRecord, error) {
	var rec userRecord
	if err := s.getJSON(ctx, keyUser+name, &rec); err != nil {
		return nil, err
	}
	rec.normalize()
	return &rec, nil
}

func (s *Service) putUserRecord(ctx context.Context, rec *userRecord) error {
	rec.normalize()
	s.cache.forget(rec.Username)
	return s.putJSON(ctx, keyUser+rec.Username, rec)
}

// reservedUser returns a reserved user's record (stored or default).
func (s *Service) reservedUser(ctx context.Context, name string) (*userRecord, error) {
	roles, ok := reservedRoles(name)
	if !ok {
		return nil, searchcore.ErrNotFound
	}
	rec, err := s.loadUser(ctx, name)
	if errors.Is(err, searchcore.ErrNotFound) {
		rec = &userRecord{User: User{Username: name, Enabled: true}, Reserved: true}
	} else if err != nil {
		return nil, err
	}
	rec.Roles = append([]string(nil), roles...)
	rec.Metadata = map[string]any{"_reserved": true}
	if repl, ok := deprecatedUsers[name]; ok {
		rec.Metadata["_deprecated"] = true
		rec.Metadata["_deprecated_reason"] = fmt.Sprintf("Please use the [%s] user instead", repl)
	}
	rec.Reserved = true
	return rec, nil
}

// PutUser creates or updates a native user and reports whether it was
// created.
func (s *Service) PutUser(ctx context.Context, name string, req *PutUserRequest) (bool, error) {
	if err := ValidateUsername(name); err != nil {
		return false, err
	}
	if _, ok := reservedRoles(name); ok {
		return false, eserr.ValidationError(fmt.Sprintf("Username [%s] is reserved and may not be used.", name))
	}
	if req.Password != nil && req.PasswordHash != nil {
		return false, eserr.ValidationError("only one of [password, passwordHash] can be provided")
	}
	if req.Password != nil && len(*req.Password) < minPasswordLength {
		return false, eserr.ValidationError(fmt.Sprintf("passwords must be at least [%d] characters long", minPasswordLength))
	}
	if req.PasswordHash != nil {
		if _, err := bcryptCost(*req.PasswordHash); err != nil {
			return false, eserr.ValidationError("The provided password hash is not a hash or it could not be resolved to a supported hash algorithm. The supported password hash algorithms are [bcrypt]")
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, err := s.loadUser(ctx, name)
	created := errors.Is(err, searchcore.ErrNotFound)
	if err != nil && !created {
		return false, err
	}
	if created {
		if req.Password == nil && req.PasswordHash == nil {
			return false, eserr.ValidationError("password must be specified unless you are updating an existing user")
		}
		rec = &userRecord{User: User{Username: name, Enabled: true}}
	}
	if req.Password != nil {
		h, err := s.hashPassword(*req.Password)
		if err != nil {
			return false, err
		}
		rec.PasswordHash = h
	}
	if req.PasswordHash != nil {
		rec.PasswordHash = *req.PasswordHash
	}
	rec.Roles = req.Roles
	rec.FullName = req.FullName
	rec.Email = req.Email
	rec.Metadata = req.Metadata
	if req.Enabled != nil {
		rec.Enabled = *req.Enabled
	}
	return created, s.putUserRecord(ctx, rec)
}

// Users returns the named users (every user, reserved ones included, when
// names is empty).
func (s *Service) Users(ctx context.Context, names []string) (map[string]User, error) {
	out := map[string]User{}
	add := func(name string) error {
		rec, err := s.user(ctx, name)
		if errors.Is(err, searchcore.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		out[name] = rec.User
		return nil
	}
	if len(names) > 0 {
		for _, n := range names {
			if err := add(n); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	for _, u := range reservedUsers {
		if err := add(u.name); err != nil {
			return nil, err
		}
	}
	err := s.store.ListMeta(ctx, keyUser, func(key string, value []byte) error {
		var rec userRecord
		if err := json.Unmarshal(value, &rec); err != nil {
			return err
		}
		if !rec.Reserved {
			rec.normalize()
			out[rec.Username] = rec.User
		}
		return nil
	})
	return out, err
}

// user returns a native or reserved user's record.
func (s *Service) user(ctx context.Context, name string) (*userRecord, error) {
	if _, ok := reservedRoles(name); ok {
		return s.reservedUser(ctx, name)
	}
	return s.loadUser(ctx, name)
}

// DeleteUser removes a native user and reports whether it existed.
func (s *Service) DeleteUser(ctx context.Context, name string) (bool, error) {
	if _, ok := reservedRoles(name); ok {
		return false, eserr.IllegalArgument("user [%s] is reserved and cannot be deleted", name)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_, err := s.loadUser(ctx, name)
	if errors.Is(err, searchcore.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	s.cache.forget(name)
	return true, s.store.DeleteMeta(ctx, keyUser+name)
}

// ChangePassword sets a user's password (native or reserved).
func (s *Service) ChangePassword(ctx context.Context, name, password string) error {
	if len(password) < minPasswordLength {
		return eserr.ValidationError(fmt.Sprintf("passwords must be at least [%d] characters long", minPasswordLength))
	}
	h, err := s.hashPassword(password)
	if err != nil {
		return err
	}
	return s.updateUser(ctx, name, func(rec *userRecord) { rec.PasswordHash = h })
}

// updateUser changes an existing native or reserved user's record.
func (s *Service) updateUser(ctx context.Context, name string, change func(*userRecord)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, err := s.user(ctx, name)
	if errors.Is(err, searchcore.ErrNotFound) {
		return eserr.Errorf(eserr.NotFound, "resource_not_found_exception", "user [%s] does not exist", name)
	}
	if err != nil {
		return err
	}
	change(rec)
	return s.putUserRecord(ctx, rec)
}

// SetEnabled enables or disables a user.
func (s *Service) SetEnabled(ctx context.Context, name string, enabled bool) error {
	return s.updateUser(ctx, name, func(rec *userRecord) { rec.Enabled = enabled })
}
