import { Button, Field, HStack, Input, Stack } from '@chakra-ui/react';
import { useState, type FormEvent } from 'react';
import { Section } from '../../components/Section';
import { useBroadcastMutation, type BroadcastArgs } from './debugApi';

// contracts/debug.ts: the server takes 1 to 500 characters.
const maxLength = 500;

/** Sends a DebugMessage through the hub, to this user's connections or to everyone's. */
export function MessageSection() {
  const [text, setText] = useState('');
  const [broadcast, { isLoading: sending, originalArgs }] = useBroadcastMutation();
  const empty = text.trim() === '';

  const send = async (to: BroadcastArgs['to']) => {
    try {
      await broadcast({ text: text.trim(), to }).unwrap();
      setText('');
    } catch {
      // Toasted by the one error path; the text stays for another try.
    }
  };
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!empty && !sending) void send('me');
  };

  return (
    <Section title="Test message" description="Arrives as a toast on every connection it is sent to.">
      <form onSubmit={submit} aria-busy={sending}>
        <Stack gap="3" maxW="xl">
          <Field.Root>
            <Field.Label>Message</Field.Label>
            <Input value={text} maxLength={maxLength} onChange={(event) => setText(event.target.value)} />
          </Field.Root>
          <HStack gap="2">
            <Button type="submit" disabled={empty || sending} loading={sending && originalArgs?.to === 'me'}>
              Send to me
            </Button>
            <Button
              variant="outline"
              disabled={empty || sending}
              loading={sending && originalArgs?.to === 'all'}
              onClick={() => send('all')}
            >
              Send to all
            </Button>
          </HStack>
        </Stack>
      </form>
    </Section>
  );
}
