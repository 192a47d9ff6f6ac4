// Inline icons: no icon font or network request. Decorative, so hidden from
// screen readers; the button around each one carries the accessible name.
import type { SVGProps } from "react";

function Icon({ children, ...props }: SVGProps<SVGSVGElement>) {
  return (
    <svg
      viewBox="0 0 24 24"
      width="18"
      height="18"
      fill="none"
      stroke="currentColor"
      strokeWidth="2"
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
      {...props}
    >
      {children}
    </svg>
  );
}

export const ArrowUpIcon = () => (
  <Icon>
    <path d="M12 19V5M5 12l7-7 7 7" />
  </Icon>
);

export const StopIcon = () => (
  <Icon fill="currentColor" stroke="none">
    <rect x="6" y="6" width="12" height="12" rx="2" />
  </Icon>
);

export const PencilIcon = () => (
  <Icon width="16" height="16">
    <path d="M12 20h9M16.5 3.5a2.1 2.1 0 0 1 3 3L7 19l-4 1 1-4Z" />
  </Icon>
);

export const TrashIcon = () => (
  <Icon width="16" height="16">
    <path d="M3 6h18M8 6V4h8v2M19 6l-1 14H6L5 6M10 11v6M14 11v6" />
  </Icon>
);

export const PlusIcon = () => (
  <Icon>
    <path d="M12 5v14M5 12h14" />
  </Icon>
);

export const MenuIcon = () => (
  <Icon>
    <path d="M4 6h16M4 12h16M4 18h16" />
  </Icon>
);

export const CloseIcon = () => (
  <Icon>
    <path d="M6 6l12 12M18 6 6 18" />
  </Icon>
);

export const CopyIcon = () => (
  <Icon width="16" height="16">
    <rect x="9" y="9" width="12" height="12" rx="2" />
    <path d="M5 15H4a2 2 0 0 1-2-2V4a2 2 0 0 1 2-2h9a2 2 0 0 1 2 2v1" />
  </Icon>
);

export const CheckIcon = () => (
  <Icon width="16" height="16">
    <path d="M20 6 9 17l-5-5" />
  </Icon>
);

/** Points down; turned over (rotate-180) when what it opens is open. */
export const ChevronDownIcon = ({ className }: { className?: string }) => (
  <Icon width="14" height="14" className={className}>
    <path d="m6 9 6 6 6-6" />
  </Icon>
);

export const BellIcon = () => (
  <Icon width="12" height="12">
    <path d="M6 8a6 6 0 0 1 12 0c0 7 3 9 3 9H3s3-2 3-9" />
    <path d="M10.3 21a1.94 1.94 0 0 0 3.4 0" />
  </Icon>
);

export const ChevronLeftIcon = () => (
  <Icon width="16" height="16">
    <path d="m15 18-6-6 6-6" />
  </Icon>
);

export const ChevronRightIcon = () => (
  <Icon width="16" height="16">
    <path d="m9 18 6-6-6-6" />
  </Icon>
);

export const RegenerateIcon = () => (
  <Icon width="16" height="16">
    <path d="M21 12a9 9 0 1 1-2.6-6.4M21 4v5h-5" />
  </Icon>
);

export const ForkIcon = () => (
  <Icon width="16" height="16">
    <circle cx="6" cy="5" r="2" />
    <circle cx="18" cy="5" r="2" />
    <circle cx="12" cy="19" r="2" />
    <path d="M6 7v2a3 3 0 0 0 3 3h6a3 3 0 0 0 3-3V7M12 12v5" />
  </Icon>
);

export const ShareIcon = () => (
  <Icon width="16" height="16">
    <path d="M12 15V3M7 8l5-5 5 5M5 12v7a2 2 0 0 0 2 2h10a2 2 0 0 0 2-2v-7" />
  </Icon>
);

export const DownloadIcon = () => (
  <Icon width="16" height="16">
    <path d="M12 4v11M7 10l5 5 5-5M5 20h14" />
  </Icon>
);

export const DevicesIcon = ({ className }: { className?: string }) => (
  <Icon className={className}>
    <rect x="2" y="4" width="14" height="10" rx="1.5" />
    <path d="M6 18h6" />
    <rect x="17" y="9" width="5" height="11" rx="1" />
  </Icon>
);

export const ThumbUpIcon = ({ filled }: { filled?: boolean }) => (
  <Icon fill={filled ? "currentColor" : "none"}>
    <path d="M7 10v11H4a1 1 0 0 1-1-1v-9a1 1 0 0 1 1-1h3zM7 10l4-8a3 3 0 0 1 3 3v4h5.5a2 2 0 0 1 2 2.3l-1.3 8a2 2 0 0 1-2 1.7H7" />
  </Icon>
);

export const ThumbDownIcon = ({ filled }: { filled?: boolean }) => (
  <Icon fill={filled ? "currentColor" : "none"}>
    <path d="M17 14V3h3a1 1 0 0 1 1 1v9a1 1 0 0 1-1 1h-3zM17 14l-4 8a3 3 0 0 1-3-3v-4H4.5a2 2 0 0 1-2-2.3l1.3-8a2 2 0 0 1 2-1.7H17" />
  </Icon>
);

export const PaperclipIcon = () => (
  <Icon>
    <path d="M21 11.5l-8.6 8.6a5 5 0 0 1-7.1-7.1l8.6-8.6a3.3 3.3 0 0 1 4.7 4.7l-8.6 8.6a1.7 1.7 0 0 1-2.4-2.4l7.9-7.9" />
  </Icon>
);

export const FileIcon = () => (
  <Icon width="16" height="16">
    <path d="M14 3H6a1 1 0 0 0-1 1v16a1 1 0 0 0 1 1h12a1 1 0 0 0 1-1V8z" />
    <path d="M14 3v5h5" />
  </Icon>
);

export const UserIcon = () => (
  <Icon>
    <circle cx="12" cy="8" r="4" />
    <path d="M4 21a8 8 0 0 1 16 0" />
  </Icon>
);
