/**
 * The bot's own texts in English, the catalog's reference: every other language has exactly
 * these keys (Messages), and tests render each with sample values. ICU MessageFormat: plurals
 * and numbers go through `{count, plural, …}` and `{n, number}`, never through concatenation.
 * Commands, codes and other values that are not words are `{values}`: in a right-to-left
 * language they are isolated, so they do not reorder the sentence around them.
 */
export const en = {
  // The end of an answer and its notes.
  noAnswer: "(no answer)",
  truncated: "(truncated)",
  failed: "⚠️ {reason}",
  answerCut: "answer cut off: {reason}",
  numberInLine: "⏳ many questions right now: yours is number {place, number} in line",
  busy: "⏳ The bot is busy right now: please try again in a minute.",

  // Why an answer failed or was cut: the end of "⚠️ …" and "answer cut off: …".
  errorUnexpected: "something went wrong on the bot's side",
  errorApiKey: "the chatbot rejected the API key ({status})",
  errorPermission:
    "the chatbot refused access ({status}): chatting needs a paid subscription on the chatbot account",
  errorNotFound: "the chatbot was not found ({status}): check the base URL and the bot id",
  errorBackendBusy: "the chatbot is busy ({status}); please try again shortly",
  errorBackendFailed: "the chatbot service failed ({status}); please try again later",
  errorBackendRefused: "the chatbot refused the request ({status})",
  errorApi: "the chatbot returned an error (code {code})",
  errorApiDetail: "the chatbot returned an error (code {code}): {detail}",
  errorProtocol: "the chatbot sent a response this bot cannot read",
  errorNoResponse: "the chatbot did not respond in time",
  errorSilent: "the chatbot stopped sending",
  errorTooLong: "the chatbot took longer than {duration}",
  errorUnreachable: "could not reach the chatbot",
  errorConnectionLost: "connection lost",
  errorInterrupted: "interrupted",
  errorStore: "the bot's storage is unavailable right now; please try again shortly",
  errorPlatformRateLimit: "the chat platform asked the bot to slow down",
  errorCannotPost: "the bot cannot post here",
  errorCannotPostBecause: "the bot cannot post here ({error})",
  errorRestarting:
    "the bot is restarting and did not get to your question: please ask again in a minute",
  errorSlackRefused: "Slack refused the reply ({error})",
  errorSlackAdminCheck: "could not check whether you are a workspace admin ({error})",
  errorTelegramRefused: "Telegram refused the bot's request ({error})",
  errorTelegramUnreachable: "the bot could not reach Telegram; please try again shortly",
  errorTelegramAdminCheck:
    "could not check with Telegram whether you are an admin here; please try again",

  // Refusals before a question reaches the chatbot.
  channelNotEnabled: "This bot is not enabled in this channel.",
  userNotAllowed: "Sorry, you are not on the list of people who may use this bot.",
  emptyQuestion: "Please write a question.",
  questionTooLong:
    "Your question is {length, number} characters long; the limit is {limit, number}. Please shorten it.",
  slowDown:
    "Slow down: you may ask {count, plural, one {# question} other {# questions}} in {window, number} s. Try again in {seconds, number} s.",
  onlyText: "I can only read text messages: please write your question.",

  // Commands.
  helpIntro: "Ask me anything, or use a command:",
  helpLine: "{usage}  {what}",
  helpHelp: "list the commands",
  helpNew: "start a fresh conversation in this thread",
  helpLanguage: "show the answer language of this channel",
  helpLanguageSet: "set it (admins; {auto} resets)",
  helpLeads: "list the leads of the last days (default {days, number}), in a lead channel",
  helpLeadsSubscribe: "announce new leads here (admins); {unsubscribe} stops",
  unknownCommand: "Unknown command {command}.",
  newConversation: "Starting fresh: your next question begins a new conversation.",
  newOutsideThread:
    "Each thread is its own conversation here: start a new thread (mention me, or send me a new message) for a fresh one, or write {new} after a mention inside a thread.",
  languageNamed: "{name} ({code})",
  languageAuto: "the language of each question ({code})",
  languageShown: "Answers here are in {language}. Admins can change it with {command}.",
  languageShownDefault:
    "Answers here are in {language}, the default. Admins can change it with {command}.",
  languageSet: "Answers here are now in {language}.",
  languageReset: "Answer language reset: answers here are in {language}.",
  languageAdminOnly: "Only an admin of this channel can change the answer language.",
  languageUnknown: "unknown language code. Valid codes: {codes}",

  // Leads.
  leadsUsage: "expected {list}, {days} (1 to {max, number}), {subscribe} or {unsubscribe}",
  leadsNotSetUp: "Lead announcements are not set up for this bot.",
  leadsAdminOnly: "Only the bot's admins can turn lead announcements on or off.",
  leadsOnlyInLeadChannels:
    "Leads are shown only in lead channels. One of the bot's admins can make this one a lead channel with {command}.",
  leadsNone: "No leads in {days, plural, one {the last day} other {the last # days}}.",
  leadsTooManyToCount:
    "Too many leads to count: the bot reads at most {read, number} at a time, and those it read are all older than {days, plural, one {the last day} other {the last # days}}.",
  leadsTitle:
    "{count, plural, one {# lead} other {# leads}} in {days, plural, one {the last day} other {the last # days}}, newest first:",
  leadsTitleAtLeast:
    "At least {count, plural, one {# lead} other {# leads}} in {days, plural, one {the last day} other {the last # days}} (more than the bot reads at once), newest first:",
  leadsMoreAtLeast: "…and at least {count, number} more.",
  leadsMoreOlder: "…and {count, plural, one {# older one} other {# older ones}}.",
  leadLine: "• {time}: {name} · {phone} · {email}",
  leadLineRemark: "• {time}: {name} · {phone} · {email} — “{remark}”",
  leadsConfigured:
    "This channel gets leads through the bot's configuration ({variables}); change it there.",
  leadsSubscribed: "This channel now gets every new lead.",
  leadsAlreadySubscribed: "This channel already gets every new lead.",
  leadsUnsubscribed: "This channel no longer gets lead announcements.",
  leadsNotSubscribed: "This channel was not getting lead announcements.",
  leadTitle: "New lead",
  leadFallback: "New lead: {name}",
  leadName: "Name",
  leadPhone: "Phone",
  leadEmail: "E-mail",
  leadRemark: "Remark",
  leadTime: "Time",
  leadConversation: "Conversation",
  leadCaptured: "Captured",
  leadCapturedOutside: "outside the chats this bot serves",
  leadCapturedPrivate: "in a private {platform} chat with {name}",
  leadCapturedBusiness: "in the business account’s {platform} chat with {name}",
  leadCapturedPrivateUnnamed: "in a private {platform} chat",
  leadCapturedThreadUnnamed: "in a {platform} thread",
  leadCapturedGroupUnnamed: "in a {platform} group",
  leadCapturedThread: "in a {platform} thread in {where}",
  leadCapturedGroup: "in the {platform} group {where}",

  // Slack: a DM opened with nothing in it yet (the agent view), a new assistant-pane thread.
  assistantGreeting:
    "Hi! Ask me anything. Each thread here is its own conversation; {command} lists the commands.",
  promptAbilities: "What can you do?",
  promptStart: "Where do I start?",
  promptSimpleTitle: "Explain it simply",
  promptSimple: "Explain what you know about in a few simple sentences.",
  // The loading status under a Slack thread: Slack puts the app's name before it.
  statusThinking: "is thinking…",

  // What the chatbot receives: the headings around a first question's discussion (docs/chatbot.md).
  contextThread: "Earlier in this thread:",
  contextReply: "In reply to:",
  contextQuestion: "Question:",

  // The Telegram command menu (3-256 characters each).
  menuHelp: "List the commands",
  menuNew: "Start a fresh conversation here",
  menuLanguage: "Show the answer language (admins: {command})",
  menuLeads: "List recent leads; {command} announces them here",

  // The console.
  consoleThinking: "thinking…",
  consoleWelcome: "Chat with the chatbot: type a question, or {command} for the commands.",
  consoleSimulated:
    "(Answers come from the built-in simulated chatbot: set {url}, {key} and {uid} to use yours.)",
  consoleKeys: "{stop} stops an answer; at the prompt, {stop} or {quit} quits.",
  consoleDropped:
    "({count, plural, one {# line typed during the answer was dropped} other {# lines typed during the answer were dropped}})",

  // Stopping an answer and rating it; `/feedback`.
  stoppedBy: "⏹ stopped by {name}",
  stopped: "⏹ stopped",
  nothingToStop: "Nothing to stop: no answer is being written in this thread.",
  // A question waiting in line, withdrawn by its asker's stop: its notice, and the reply to the stop.
  withdrawnBy: "⏹ withdrawn by {name}: this question will not be answered",
  withdrawn: "⏹ withdrawn: this question will not be answered",
  questionWithdrawn:
    "⏹ {count, plural, one {Your waiting question was withdrawn.} other {# waiting questions were withdrawn.}}",
  stopUsage: "expected {stop}",
  stopRefused: "Only the person who asked or an admin of this channel can stop this answer.",
  stopButton: "⏹ Stop",
  voteThanks: "Thanks for your {mark}!",
  voteChanged: "Your vote is now {mark}. Thanks!",
  voteTooLate: "This answer is too old to rate.",
  feedbackAdminOnly: "Only an admin of this channel can see the feedback.",
  feedbackUsage: "expected {list} or {days} (1 to {max, number})",
  feedbackNoneHere:
    "No votes on answers in this channel in {days, plural, one {the last day} other {the last # days}}.",
  feedbackNoneAll:
    "No votes on answers in any channel in {days, plural, one {the last day} other {the last # days}}.",
  feedbackHere:
    "Votes on answers in this channel in {days, plural, one {the last day} other {the last # days}}: 👍 {up, number} · 👎 {down, number} ({share, number, percent} 👍)",
  feedbackAll:
    "Votes on answers in all channels in {days, plural, one {the last day} other {the last # days}}: 👍 {up, number} · 👎 {down, number} ({share, number, percent} 👍)",
  helpStop: "stop the answer being written in this thread (the asker or an admin)",
  helpFeedback:
    "count the 👍 and 👎 on answers here (admins; default {days, plural, one {# day} other {# days}})",
  menuStop: "Stop the answer being written (reply to it in a group)",
  menuFeedback: "Count the 👍 and 👎 on answers here",

  // Claiming a lead: its buttons, the line under an announcement, the private replies.
  claimButton: "I'll take it",
  releaseButton: "Release",
  claimedBy: "Claimed by {name} at {time}",
  alreadyClaimed: "{name} already took this lead, at {time}.",
  youHaveIt: "You already have this lead.",
  onlyClaimerReleases: "Only {name}, who took this lead, can release it.",
  notClaimed: "Nobody has this lead right now.",
  claimUnavailable: "This lead can no longer be claimed here.",
  claimTryAgain: "The lead just changed hands: please try again.",
  listedClaim: "claimed by {name} ({time})",
  // A label before its value in a Telegram lead announcement ("Nom : Ada" in French).
  leadLabel: "{label}:",

  // Several chatbots in one deployment (CHATBOTS): choosing a channel's, naming the one meant.
  // An answer that failed, said with its chatbot's name: "sales: the chatbot was not found".
  chatbotFailed: "{chatbot}: {reason}",
  // `/help` and the Telegram menu, where there are several chatbots.
  helpChatbot: "show which chatbot answers here, and the others",
  helpChatbotUse: "send new conversations here to that chatbot (admins)",
  helpLeadsSubscribeChatbot: "announce that chatbot's new leads here (admins)",
  menuChatbot: "Show the chatbot of this chat (admins: {command})",
  // `/chatbot`, `/chatbot use <name>`; the line `/language` adds to say whose answers.
  chatbotShown:
    "Questions here go to {chatbot}. Chatbots: {list}. Admins can change it with {command}.",
  chatbotShownDefault:
    "Questions here go to {chatbot}, the default. Chatbots: {list}. Admins can change it with {command}.",
  chatbotSet:
    "New conversations here now go to {chatbot}. A conversation under way stays with its chatbot; {new} starts a new one.",
  chatbotAdminOnly: "Only an admin of this channel can choose its chatbot.",
  chatbotUnknown: "No chatbot is named {name}. Chatbots: {list}.",
  chatbotUsage: "expected {show} or {use}",
  chatbotHere: "This channel's chatbot: {chatbot}.",
  // `/leads subscribe <name>` and `/leads`, a lead card's field, a line of `/feedback`.
  leadsSubscribedTo: "This channel now gets the new leads of {chatbot}.",
  leadsAlreadySubscribedTo: "This channel already gets the new leads of {chatbot}.",
  leadsUnsubscribedFrom: "This channel no longer gets the leads of {chatbot}.",
  leadsNotSubscribedTo: "This channel was not getting the leads of {chatbot}.",
  leadsOf: "Leads of {chatbot}:",
  leadChatbot: "Chatbot",
  feedbackOfChatbot: "{chatbot}: 👍 {up, number} · 👎 {down, number}",
  // A person of the company talks with a lead's customer through the bot (a hand-over): the
  // card's buttons and lines, what the customer is told, the lines relayed, the private replies.
  talkButton: "Talk to them",
  handBackButton: "Hand back",
  handoverTalking: "{name} is talking with them (since {time})",
  handoverHandedBack: "Handed back to the chatbot at {time}",
  handoverJoined:
    "{name} from our team has joined this chat. The chatbot is paused until they hand it back.",
  handoverEnded: "The chatbot answers again in this chat.",
  handoverCustomerLine: "💬 {name}: {text}",
  handoverCustomer: "Customer",
  handoverSellerLine: "{name} (Sales): {text}",
  pausedBy: "⏹ paused: {name} from Sales took over",
  handoverOnlyClaimer:
    "Only {name}, who took this lead, or a bot admin can talk with this customer.",
  handoverClaimFirst: "Take the lead first: then you can talk with them.",
  handoverNotOurs: "This lead's conversation is not in a chat this bot can reach.",
  handoverBusy: "{name} is already talking in this customer's chat.",
  handoverNotOpen: "Nobody is talking with this customer right now.",
  handoverOver: "This chat went back to the chatbot: your message was not sent.",
  handoverNotDelivered: "Not delivered: {reason}",
  handBackNone: "No person of the company is talking in this chat.",
  handBackAdminOnly: "Only an admin of this chat can hand it back to the chatbot.",
  helpHandBack: "give a chat a person of the company took over back to the chatbot (admins)",
  menuHandBack: "Give this chat back to the chatbot",
} as const;
