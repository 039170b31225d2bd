import { defaultConfigDir } from '../../../cli/credentials';
import { buildProgram } from '../../../cli/program';

// Where the sign-in is kept and what the help calls that folder, for Windows and elsewhere.

describe('the default sign-in folder', () => {
  it('is %APPDATA%\\warden on Windows, whatever XDG_CONFIG_HOME says', () => {
    const env = { APPDATA: 'C:\\Users\\ada\\AppData\\Roaming', XDG_CONFIG_HOME: '/ignored' };
    expect(defaultConfigDir({ platform: 'win32', env, home: 'C:\\Users\\ada' })).toBe('C:\\Users\\ada\\AppData\\Roaming\\warden');
    expect(defaultConfigDir({ platform: 'win32', env: {}, home: 'C:\\Users\\ada' })).toBe('C:\\Users\\ada\\AppData\\Roaming\\warden');
  });

  it('is $XDG_CONFIG_HOME/warden elsewhere, else ~/.config/warden', () => {
    expect(defaultConfigDir({ platform: 'linux', env: { XDG_CONFIG_HOME: '/srv/config', APPDATA: 'C:\\x' }, home: '/home/ada' })).toBe('/srv/config/warden');
    expect(defaultConfigDir({ platform: 'linux', env: {}, home: '/home/ada' })).toBe('/home/ada/.config/warden');
    expect(defaultConfigDir({ platform: 'darwin', env: { XDG_CONFIG_HOME: '' }, home: '/Users/ada' })).toBe('/Users/ada/.config/warden');
  });
});

describe('the help', () => {
  it("names %APPDATA%\\warden on Windows and not ~/.config", () => {
    const help = buildProgram('win32').helpInformation();
    expect(help).toContain('%APPDATA%\\warden');
    expect(help).not.toContain('.config');
  });

  it('names $XDG_CONFIG_HOME/warden and ~/.config/warden elsewhere', () => {
    const help = buildProgram('linux').helpInformation();
    expect(help).toContain('$XDG_CONFIG_HOME/warden or ~/.config/warden');
    expect(help).not.toContain('APPDATA');
  });
});
