import { Button, Dialog, Portal } from '@chakra-ui/react';
import type { ClientVersion } from '../../../contracts/clientVersions';
import { useDeleteClientVersionMutation } from './clientsApi';

const platformNames = { windows: 'Windows', containers: 'container' } as const;

/** Asks before an old version is removed for good; the server keeps the latest whatever is asked. */
export function RemoveVersionDialog({ release, onClose }: { release: ClientVersion | null; onClose: () => void }) {
  const [remove, removing] = useDeleteClientVersionMutation();
  const confirm = async () => {
    if (!release) return;
    await remove({ version: release.version, platform: release.platform });
    onClose();
  };
  return (
    <Dialog.Root role="alertdialog" open={release !== null} onOpenChange={({ open }) => !open && onClose()} placement="center" lazyMount unmountOnExit>
      <Portal>
        <Dialog.Backdrop />
        <Dialog.Positioner>
          <Dialog.Content>
            <Dialog.Header>
              <Dialog.Title>Remove this version?</Dialog.Title>
            </Dialog.Header>
            <Dialog.Body>
              The {release && platformNames[release.platform]} client {release?.version} and its file are removed from the server; nobody can
              download it afterwards. This cannot be undone.
            </Dialog.Body>
            <Dialog.Footer>
              <Dialog.ActionTrigger asChild>
                <Button variant="outline">Cancel</Button>
              </Dialog.ActionTrigger>
              <Button colorPalette="red" loading={removing.isLoading} onClick={confirm}>
                Remove
              </Button>
            </Dialog.Footer>
          </Dialog.Content>
        </Dialog.Positioner>
      </Portal>
    </Dialog.Root>
  );
}
