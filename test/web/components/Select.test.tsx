import { Dialog, Field } from '@chakra-ui/react';
import { act, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { Select, type SelectOption } from '../../../src/components/Select';
import { SelectField } from '../../../src/components/SelectField';
import { pickOption } from '../pickOption';
import { renderUi } from './renderUi';

const fruit: SelectOption[] = [
  { value: 'apple', label: 'Apple' },
  { value: 'apricot', label: 'Apricot', disabled: true },
  { value: 'banana', label: 'Banana' },
  { value: 'blueberry', label: 'Blueberry' },
  { value: 'cherry', label: 'Cherry' },
];

/** A controlled field that records every change. */
function Harness({ options = fruit, initial = 'apple', onChange }: { options?: SelectOption[]; initial?: string; onChange: (value: string) => void }) {
  const [value, setValue] = useState(initial);
  return (
    <SelectField
      label="Fruit"
      value={value}
      options={options}
      onChange={(next) => {
        setValue(next);
        onChange(next);
      }}
    />
  );
}

const combobox = () => screen.getByRole('combobox', { name: 'Fruit' });
const activeOption = () => document.getElementById(combobox().getAttribute('aria-activedescendant') ?? '');

function setup(props: Partial<Parameters<typeof Harness>[0]> = {}, user = userEvent.setup()) {
  const onChange = jest.fn();
  renderUi(<Harness onChange={onChange} {...props} />);
  return { user, onChange };
}

describe('Select', () => {
  it('is a select-only combobox named by its field label, controlling a listbox', async () => {
    const { user } = setup();
    const box = combobox();
    expect(screen.getByLabelText('Fruit')).toBe(box);
    expect(box).toHaveAttribute('aria-expanded', 'false');
    expect(box).toHaveAttribute('aria-haspopup', 'listbox');
    expect(box).toHaveValue('apple');
    expect(box).toHaveTextContent('Apple');

    await user.click(box);
    const listbox = screen.getByRole('listbox', { name: 'Fruit' });
    expect(box).toHaveAttribute('aria-expanded', 'true');
    expect(box).toHaveAttribute('aria-controls', listbox.id);
    expect(screen.getByRole('option', { name: 'Apple' })).toHaveAttribute('aria-selected', 'true');
    expect(screen.getByRole('option', { name: 'Banana' })).toHaveAttribute('aria-selected', 'false');
    expect(screen.getByRole('option', { name: 'Apricot' })).toHaveAttribute('aria-disabled', 'true');
    expect(activeOption()).toHaveTextContent('Apple');
  });

  it('moves with the arrow keys, Home and End, skipping disabled options, and chooses with Enter', async () => {
    const { user, onChange } = setup();
    combobox().focus();
    await user.keyboard('{ArrowDown}');
    expect(combobox()).toHaveAttribute('aria-expanded', 'true');
    expect(activeOption()).toHaveTextContent('Apple');
    await user.keyboard('{ArrowDown}');
    expect(activeOption()).toHaveTextContent('Banana');
    await user.keyboard('{ArrowUp}');
    expect(activeOption()).toHaveTextContent('Apple');
    await user.keyboard('{ArrowUp}');
    expect(activeOption()).toHaveTextContent('Apple');
    await user.keyboard('{End}');
    expect(activeOption()).toHaveTextContent('Cherry');
    await user.keyboard('{ArrowDown}');
    expect(activeOption()).toHaveTextContent('Cherry');
    await user.keyboard('{Home}{ArrowDown}{ArrowDown}{Enter}');

    expect(onChange).toHaveBeenCalledWith('blueberry');
    expect(combobox()).toHaveAttribute('aria-expanded', 'false');
    expect(combobox()).toHaveFocus();
    expect(combobox()).toHaveTextContent('Blueberry');
  });

  it('chooses with Space, closes without choosing on Escape, and chooses when Tab moves on', async () => {
    const onChange = jest.fn();
    const user = userEvent.setup();
    renderUi(
      <>
        <Harness onChange={onChange} />
        <button type="button">Next</button>
      </>,
    );
    combobox().focus();
    await user.keyboard('{ArrowDown}{ArrowDown}{Escape}');
    expect(combobox()).toHaveAttribute('aria-expanded', 'false');
    expect(onChange).not.toHaveBeenCalled();

    await user.keyboard(' ');
    await user.keyboard('{ArrowDown} ');
    expect(onChange).toHaveBeenLastCalledWith('banana');

    await user.keyboard('{ArrowDown}{ArrowDown}');
    await user.tab();
    expect(onChange).toHaveBeenLastCalledWith('blueberry');
    expect(combobox()).toHaveAttribute('aria-expanded', 'false');
    expect(screen.getByRole('button', { name: 'Next' })).toHaveFocus();
  });

  it('jumps ten options with Page Down and Page Up', async () => {
    const many = Array.from({ length: 14 }, (_, index) => ({ value: `v${index}`, label: `Item ${index}` }));
    const { user } = setup({ options: many, initial: 'v0' });
    combobox().focus();
    await user.keyboard('{ArrowDown}{PageDown}');
    expect(activeOption()).toHaveTextContent('Item 10');
    await user.keyboard('{PageDown}');
    expect(activeOption()).toHaveTextContent('Item 13');
    await user.keyboard('{PageUp}');
    expect(activeOption()).toHaveTextContent('Item 3');
  });

  it('closes on Escape without closing the dialog around it', async () => {
    const onOpenChange = jest.fn();
    const user = userEvent.setup();
    renderUi(
      <Dialog.Root open onOpenChange={onOpenChange}>
        <Dialog.Positioner>
          <Dialog.Content aria-label="Choose">
            <Harness onChange={jest.fn()} />
          </Dialog.Content>
        </Dialog.Positioner>
      </Dialog.Root>,
    );
    await user.click(combobox());
    await user.keyboard('{Escape}');
    expect(combobox()).toHaveAttribute('aria-expanded', 'false');
    expect(combobox()).toHaveFocus();
    expect(onOpenChange).not.toHaveBeenCalled();

    await user.keyboard('{Escape}');
    expect(onOpenChange).toHaveBeenCalledWith(expect.objectContaining({ open: false }));
  });

  it('ignores a click on a disabled option and chooses an enabled one by pointer', async () => {
    const { user, onChange } = setup();
    await user.click(combobox());
    await user.click(screen.getByRole('option', { name: 'Apricot' }));
    expect(onChange).not.toHaveBeenCalled();
    expect(combobox()).toHaveAttribute('aria-expanded', 'true');
    await user.click(screen.getByRole('option', { name: 'Cherry' }));
    expect(onChange).toHaveBeenCalledWith('cherry');
    expect(combobox()).toHaveAttribute('aria-expanded', 'false');
  });

  it('finds options by type-ahead, and forgets the typed letters after 500 ms', async () => {
    jest.useFakeTimers();
    try {
      const user = userEvent.setup({ advanceTimers: (ms) => jest.advanceTimersByTime(ms) });
      const { onChange } = setup({}, user);
      combobox().focus();

      await user.keyboard('bl');
      expect(combobox()).toHaveAttribute('aria-expanded', 'true');
      expect(activeOption()).toHaveTextContent('Blueberry');

      // Within 500 ms the letters add up: "blc" matches nothing and the active option stays.
      act(() => jest.advanceTimersByTime(499));
      await user.keyboard('c');
      expect(activeOption()).toHaveTextContent('Blueberry');

      // After 500 ms of quiet, "c" starts a new search.
      act(() => jest.advanceTimersByTime(500));
      await user.keyboard('c');
      expect(activeOption()).toHaveTextContent('Cherry');

      // The same letter again cycles through the labels starting with it, skipping disabled ones.
      act(() => jest.advanceTimersByTime(500));
      await user.keyboard('a');
      expect(activeOption()).toHaveTextContent('Apple');
      await user.keyboard('a');
      expect(activeOption()).toHaveTextContent('Apple');

      await user.keyboard('{Enter}');
      expect(onChange).not.toHaveBeenCalled();
      act(() => jest.advanceTimersByTime(500));
      await user.keyboard('b{Enter}');
      expect(onChange).toHaveBeenCalledWith('banana');
    } finally {
      jest.useRealTimers();
    }
  });

  it('shows option groups under their headings', async () => {
    const grouped: SelectOption[] = [
      { value: 'any', label: 'Any' },
      { value: 'pg', label: 'PostgreSQL', group: 'Databases' },
      { value: 'etcd', label: 'etcd', group: 'Databases' },
      { value: 'old', label: 'Legacy', group: 'Retired', disabled: true },
      { value: 'new', label: 'Next', group: 'Retired' },
    ];
    const { user, onChange } = setup({ options: grouped, initial: 'any' });
    await user.click(combobox());

    const databases = screen.getByRole('group', { name: 'Databases' });
    expect(Array.from(databases.querySelectorAll('[role="option"]'), (option) => option.textContent)).toEqual(['PostgreSQL', 'etcd']);
    expect(screen.getByRole('group', { name: 'Retired' })).toContainElement(screen.getByRole('option', { name: 'Next' }));

    await user.keyboard('{ArrowDown}{ArrowDown}{ArrowDown}');
    expect(activeOption()).toHaveTextContent('Next');
    await user.keyboard('{Enter}');
    expect(onChange).toHaveBeenCalledWith('new');
  });

  it('filters a long list locally in a box at the top of the panel', async () => {
    const zones = ['UTC', 'Europe/Berlin', 'Europe/Paris', 'America/New_York', 'Asia/Tokyo'].map((zone) => ({ value: zone, label: zone }));
    const onChange = jest.fn();
    const user = userEvent.setup();
    renderUi(
      <Field.Root>
        <Field.Label>Time zone</Field.Label>
        <Select value="UTC" options={zones} onChange={onChange} filterFrom={5} />
      </Field.Root>,
    );
    const zone = screen.getByRole('combobox', { name: 'Time zone' });
    zone.focus();
    await user.keyboard('e');
    const filter = screen.getByRole('textbox', { name: 'Filter options' });
    expect(filter).toHaveFocus();
    expect(filter).toHaveValue('e');

    await user.type(filter, 'urope/p');
    expect(screen.getAllByRole('option').map((option) => option.textContent)).toEqual(['Europe/Paris']);
    expect(filter).toHaveAttribute('aria-activedescendant', screen.getByRole('option', { name: 'Europe/Paris' }).id);

    await user.clear(filter);
    await user.type(filter, 'nowhere');
    expect(screen.queryAllByRole('option')).toEqual([]);
    expect(screen.getByText('No matches')).toBeInTheDocument();

    await user.clear(filter);
    await user.type(filter, 'berl{Enter}');
    expect(onChange).toHaveBeenCalledWith('Europe/Berlin');
    expect(zone).toHaveFocus();
    expect(screen.queryByRole('textbox', { name: 'Filter options' })).not.toBeInTheDocument();
  });

  it('scrolls its panel past 200 px by default, or the height a screen asks for', async () => {
    const user = userEvent.setup();
    const { rerender } = renderUi(<Select aria-label="Fruit" value="apple" options={fruit} onChange={jest.fn()} />);
    await user.click(combobox());
    expect(screen.getByRole('listbox', { name: 'Fruit' })).toHaveStyle({ maxHeight: '200px', overflowY: 'auto' });

    rerender(<Select aria-label="Fruit" value="apple" options={fruit} onChange={jest.fn()} panelHeight="320px" />);
    expect(screen.getByRole('listbox', { name: 'Fruit' })).toHaveStyle({ maxHeight: '320px' });
  });

  it('closes without choosing on a press outside', async () => {
    const { user, onChange } = setup();
    await user.click(combobox());
    await user.click(document.body);
    expect(combobox()).toHaveAttribute('aria-expanded', 'false');
    expect(onChange).not.toHaveBeenCalled();
  });

  it('marks the field invalid and described by its errors', () => {
    renderUi(<SelectField label="Fruit" value="apple" options={fruit} onChange={jest.fn()} errors={['Pick a ripe one.']} />);
    expect(combobox()).toHaveAttribute('aria-invalid', 'true');
    expect(combobox()).toHaveAccessibleDescription('Pick a ripe one.');
  });

  it('is picked by the test helper by option name', async () => {
    const { user, onChange } = setup();
    await pickOption(user, combobox(), 'Cherry');
    expect(onChange).toHaveBeenCalledWith('cherry');
  });
});
