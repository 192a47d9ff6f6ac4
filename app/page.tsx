import { NewChatView } from "@/components/chat/NewChatView";

export default function NewChatPage() {
  return <NewChatView />;
}
