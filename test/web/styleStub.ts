// Stands in for imported stylesheets, which jest does not load.
export {};
