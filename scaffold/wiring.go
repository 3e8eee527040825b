package scaffold

import "sort"

// wiringData is what groups.go.tmpl sees: the install package of every group.
type wiringData struct {
	Groups []wiredGroup
}

// wiredGroup is one import of groups.go.
type wiredGroup struct {
	Alias       string // <short>install
	InstallPath string
}

// planWiring plans groups.go of r's server for groups, as they will be once the plan is applied.
func planWiring(p *Plan, r *repo, groups []*group) error {
	var data wiringData
	for _, g := range groups {
		data.Groups = append(data.Groups, wiredGroup{Alias: g.short + "install", InstallPath: r.installPath(g)})
	}
	sort.Slice(data.Groups, func(i, j int) bool { return data.Groups[i].InstallPath < data.Groups[j].InstallPath })
	content, err := render("groups.go.tmpl", data)
	if err != nil {
		return err
	}
	p.write(r.server+"/groups.go", content)
	return nil
}
