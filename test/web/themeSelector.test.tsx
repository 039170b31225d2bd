import { ChakraProvider } from '@chakra-ui/react';
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { themes } from '../../src/theme/catalogue';
import { system } from '../../src/theme/system';
import { ThemeSelector } from '../../src/theme/ThemeSelector';
import { pickOption } from './pickOption';

function renderSelector() {
  return render(
    <ChakraProvider value={system}>
      <ThemeSelector />
    </ChakraProvider>,
  );
}

beforeEach(() => {
  localStorage.clear();
  document.documentElement.classList.remove('dark');
  // The page's theme link as public/index.html has it (head also holds Emotion's styles: keep them).
  document.getElementById('theme-link')?.remove();
  document.head.insertAdjacentHTML('afterbegin', '<link id="theme-link" rel="stylesheet" href="/themes/aura-light-green.css">');
});

describe('ThemeSelector', () => {
  it('shows the stored theme, and the default when none is stored', () => {
    localStorage.setItem('theme', 'vela-blue');
    const { unmount } = renderSelector();
    expect(screen.getByRole('combobox', { name: 'Theme' })).toHaveValue('vela-blue');
    unmount();

    localStorage.clear();
    renderSelector();
    expect(screen.getByRole('combobox', { name: 'Theme' })).toHaveValue('aura-light-green');
  });

  it('offers every theme, grouped by family', async () => {
    const user = userEvent.setup();
    renderSelector();
    await user.click(screen.getByRole('combobox', { name: 'Theme' }));
    const list = screen.getByRole('listbox', { name: 'Theme' });
    expect(within(list).getAllByRole('option')).toHaveLength(themes.length);
    const aura = within(list).getByRole('group', { name: 'Aura' });
    expect(within(aura).getByRole('option', { name: 'Aura Dark Green' })).toBeInTheDocument();
  });

  it('switches the stylesheet and remembers the choice, without a reload', async () => {
    const user = userEvent.setup();
    renderSelector();
    const select = screen.getByRole('combobox', { name: 'Theme' });

    await pickOption(user, select, 'Lara Dark Teal');

    expect(select).toHaveValue('lara-dark-teal');
    expect(document.getElementById('theme-link')).toHaveAttribute('href', '/themes/lara-dark-teal.css');
    expect(localStorage.getItem('theme')).toBe('lara-dark-teal');
    expect(document.documentElement).toHaveClass('dark');
  });
});
