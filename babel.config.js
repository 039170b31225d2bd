// One compiler for webpack and jest: TypeScript and JSX are stripped by Babel; tsc only type-checks.
module.exports = (api) => {
  const isTest = api.env('test');
  return {
    presets: [
      ['@babel/preset-env', isTest ? { targets: { node: 'current' } } : { bugfixes: true }],
      ['@babel/preset-react', { runtime: 'automatic' }],
      ['@babel/preset-typescript', { allowDeclareFields: true, onlyRemoveTypeImports: true }],
    ],
  };
};
