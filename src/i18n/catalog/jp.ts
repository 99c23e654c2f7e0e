import type { Messages } from "../messages.ts";

export const jp: Messages = {
  noAnswer: "（回答なし）",
  truncated: "（途中で切り詰めました）",
  failed: "⚠️ {reason}",
  answerCut: "回答が途中で途切れました：{reason}",
  numberInLine: "⏳ ただいま質問が集中しています。あなたの質問は {place, number} 番目です",
  busy: "⏳ ただいまボットが混み合っています。1 分ほどしてからもう一度お試しください。",

  errorUnexpected: "ボット側で問題が発生しました",
  errorApiKey: "チャットボットが API キーを拒否しました（{status}）",
  errorPermission:
    "チャットボットがアクセスを拒否しました（{status}）。チャットにはチャットボットのアカウントで有料プランが必要です",
  errorNotFound:
    "チャットボットが見つかりません（{status}）。ベース URL とボット ID を確認してください",
  errorBackendBusy:
    "チャットボットが混み合っています（{status}）。少ししてからもう一度お試しください",
  errorBackendFailed:
    "チャットボットのサービスで障害が発生しました（{status}）。しばらくしてからもう一度お試しください",
  errorBackendRefused: "チャットボットがリクエストを拒否しました（{status}）",
  errorApi: "チャットボットがエラーを返しました（コード {code}）",
  errorApiDetail: "チャットボットがエラーを返しました（コード {code}）：{detail}",
  errorProtocol: "チャットボットから、このボットが読めない応答が届きました",
  errorNoResponse: "チャットボットが時間内に応答しませんでした",
  errorSilent: "チャットボットからの送信が止まりました",
  errorTooLong: "チャットボットの回答に {duration} 以上かかりました",
  errorUnreachable: "チャットボットに接続できませんでした",
  errorConnectionLost: "接続が切れました",
  errorInterrupted: "中断されました",
  errorStore: "ボットのストレージが現在利用できません。少ししてからもう一度お試しください",
  errorPlatformRateLimit: "チャットサービスからボットに送信ペースを落とすよう求められました",
  errorCannotPost: "ボットはここに投稿できません",
  errorCannotPostBecause: "ボットはここに投稿できません（{error}）",
  errorRestarting:
    "ボットが再起動中のため、質問を処理できませんでした。1 分ほどしてからもう一度質問してください",
  errorSlackRefused: "Slack が返信を拒否しました（{error}）",
  errorSlackAdminCheck: "ワークスペース管理者かどうかを確認できませんでした（{error}）",
  errorTelegramRefused: "Telegram がボットのリクエストを拒否しました（{error}）",
  errorTelegramUnreachable:
    "ボットが Telegram に接続できませんでした。少ししてからもう一度お試しください",
  errorTelegramAdminCheck:
    "このチャットの管理者かどうかを Telegram で確認できませんでした。もう一度お試しください",

  channelNotEnabled: "このチャンネルではボットが有効になっていません。",
  userNotAllowed: "申し訳ありませんが、このボットを利用できるメンバーのリストに含まれていません。",
  emptyQuestion: "質問を入力してください。",
  questionTooLong:
    "質問が {length, number} 文字あります。上限は {limit, number} 文字です。短くしてください。",
  slowDown:
    "少しペースを落としてください。質問できるのは {window, number} 秒あたり {count, number} 件までです。{seconds, number} 秒後にもう一度お試しください。",
  onlyText: "読めるのはテキストメッセージだけです。質問を文字で入力してください。",

  helpIntro: "何でも質問してください。コマンドも使えます：",
  helpLine: "{usage}  {what}",
  helpHelp: "コマンドの一覧を表示",
  helpNew: "このスレッドで新しい会話を始める",
  helpLanguage: "このチャンネルの回答言語を表示",
  helpLanguageSet: "回答言語を変更（管理者のみ。{auto} で既定に戻す）",
  helpLeads: "直近の日数分のリードを表示（既定は {days, number} 日）。リード用チャンネルで使用",
  helpLeadsSubscribe: "新しいリードをここに通知（管理者のみ）。{unsubscribe} で停止",
  unknownCommand: "{command} というコマンドはありません。",
  newConversation: "リセットしました。次の質問から新しい会話になります。",
  newOutsideThread:
    "ここではスレッドごとに別の会話です。新しく始めるには新しいスレッドを作成する（メンションするか、新しいメッセージを送る）か、スレッド内でメンションの後に {new} と書いてください。",
  languageNamed: "{name}（{code}）",
  languageAuto: "質問ごとの言語（{code}）",
  languageShown: "ここでの回答言語は{language}です。管理者は {command} で変更できます。",
  languageShownDefault:
    "ここでの回答言語は{language}（既定）です。管理者は {command} で変更できます。",
  languageSet: "ここでの回答言語を{language}に変更しました。",
  languageReset: "回答言語をリセットしました。ここでの回答言語は{language}です。",
  languageAdminOnly: "回答言語を変更できるのは、このチャンネルの管理者だけです。",
  languageUnknown: "不明な言語コードです。使用できるコード：{codes}",

  leadsUsage:
    "{list}、{days}（1〜{max, number}）、{subscribe}、{unsubscribe} のいずれかを指定してください",
  leadsNotSetUp: "このボットではリードの通知が設定されていません。",
  leadsAdminOnly: "リードの通知をオン・オフできるのは、ボットの管理者だけです。",
  leadsOnlyInLeadChannels:
    "リードはリード用チャンネルにだけ表示されます。ボットの管理者は {command} でこのチャンネルをリード用にできます。",
  leadsNone: "直近 {days, number} 日間のリードはありません。",
  leadsTooManyToCount:
    "リードが多すぎて数えられません。ボットが一度に読めるのは最大 {read, number} 件で、読んだものはすべて直近 {days, number} 日間より前のものでした。",
  leadsTitle: "直近 {days, number} 日間のリード {count, number} 件（新しい順）：",
  leadsTitleAtLeast:
    "直近 {days, number} 日間のリード {count, number} 件以上（ボットが一度に読める件数を超えています、新しい順）：",
  leadsMoreAtLeast: "…ほかに少なくとも {count, number} 件。",
  leadsMoreOlder: "…ほかに古いものが {count, number} 件。",
  leadLine: "• {time}：{name} · {phone} · {email}",
  leadLineRemark: "• {time}：{name} · {phone} · {email} —「{remark}」",
  leadsConfigured:
    "このチャンネルはボットの設定（{variables}）でリードを受け取っています。変更はそちらで行ってください。",
  leadsSubscribed: "このチャンネルに新しいリードをすべて通知するようにしました。",
  leadsAlreadySubscribed: "このチャンネルにはすでに新しいリードがすべて通知されます。",
  leadsUnsubscribed: "このチャンネルへのリードの通知を停止しました。",
  leadsNotSubscribed: "このチャンネルにはもともとリードが通知されていませんでした。",
  leadTitle: "新しいリード",
  leadFallback: "新しいリード：{name}",
  leadName: "名前",
  leadPhone: "電話番号",
  leadEmail: "メール",
  leadRemark: "備考",
  leadTime: "日時",
  leadConversation: "会話",

  assistantGreeting:
    "こんにちは！何でも質問してください。ここではスレッドごとに別の会話になります。{command} でコマンドの一覧を表示できます。",
  promptAbilities: "何ができますか？",
  promptStart: "何から始めればいいですか？",
  promptSimpleTitle: "やさしく説明して",
  promptSimple: "あなたが詳しい分野を、簡単な文でいくつか説明してください。",
  statusThinking: "考え中…",

  contextThread: "このスレッドのこれまでのメッセージ：",
  contextReply: "返信先のメッセージ：",
  contextQuestion: "質問：",

  menuHelp: "コマンドの一覧を表示",
  menuNew: "ここで新しい会話を始める",
  menuLanguage: "回答言語を表示（管理者：{command}）",
  menuLeads: "最近のリードを表示。{command} でここに通知",

  consoleThinking: "考え中…",
  consoleWelcome:
    "チャットボットと会話しましょう。質問を入力するか、{command} でコマンドを表示します。",
  consoleSimulated:
    "（回答は組み込みの模擬チャットボットからです。ご自身のチャットボットを使うには {url}、{key}、{uid} を設定してください。）",
  consoleKeys: "{stop} で回答を中止。プロンプトで {stop} または {quit} を押すと終了します。",
  consoleDropped: "（回答中に入力された {count, number} 行は破棄されました）",
  stoppedBy: "⏹ {name} さんが停止しました",
  stopped: "⏹ 停止しました",
  nothingToStop: "停止する回答はありません。このスレッドで作成中の回答はありません。",
  withdrawnBy: "⏹ {name} さんが取り下げました。この質問には回答しません",
  withdrawn: "⏹ 取り下げました。この質問には回答しません",
  questionWithdrawn: "⏹ 待機中の質問を {count, number} 件取り下げました。",
  stopUsage: "{stop} の形で入力してください",
  stopRefused: "この回答を停止できるのは、質問した人かこのチャンネルの管理者だけです。",
  stopButton: "⏹ 停止",
  voteThanks: "{mark} をありがとうございます！",
  voteChanged: "投票を {mark} に変更しました。ありがとうございます！",
  voteTooLate: "この回答は古すぎて評価できません。",
  feedbackAdminOnly: "フィードバックを見られるのはこのチャンネルの管理者だけです。",
  feedbackUsage: "{list} または {days}（1〜{max, number}）の形で入力してください",
  feedbackNoneHere: "直近 {days, number} 日間、このチャンネルの回答への投票はありません。",
  feedbackNoneAll: "直近 {days, number} 日間、どのチャンネルの回答への投票もありません。",
  feedbackHere:
    "直近 {days, number} 日間のこのチャンネルの回答への投票：👍 {up, number} · 👎 {down, number}（👍 {share, number, percent}）",
  feedbackAll:
    "直近 {days, number} 日間の全チャンネルの回答への投票：👍 {up, number} · 👎 {down, number}（👍 {share, number, percent}）",
  helpStop: "このスレッドで作成中の回答を停止（質問者か管理者）",
  helpFeedback: "ここの回答への 👍 と 👎 を集計（管理者のみ。既定は {days, number} 日）",
  menuStop: "作成中の回答を停止（グループではその回答に返信）",
  menuFeedback: "ここの回答への 👍 と 👎 を集計",
  claimButton: "担当します",
  releaseButton: "担当を外れる",
  claimedBy: "{name} さんが担当（{time}）",
  alreadyClaimed: "このリードは {name} さんが {time} に担当済みです。",
  youHaveIt: "このリードはすでにあなたの担当です。",
  onlyClaimerReleases: "このリードの担当を外せるのは、担当者の {name} さんだけです。",
  notClaimed: "現在このリードの担当者はいません。",
  claimUnavailable: "このリードはここではもう担当できません。",
  claimTryAgain: "リードの担当者がちょうど変わりました。もう一度お試しください。",
  listedClaim: "{name} さんが担当（{time}）",
  leadLabel: "{label}：",

  chatbotFailed: "{chatbot}：{reason}",
  helpChatbot: "ここで回答するチャットボットと、ほかのチャットボットを表示",
  helpChatbotUse: "ここでの新しい会話をそのチャットボットに任せる（管理者のみ）",
  helpLeadsSubscribeChatbot: "そのチャットボットの新しいリードをここに通知（管理者のみ）",
  menuChatbot: "このチャットのチャットボットを表示（管理者：{command}）",
  chatbotShown:
    "ここでの質問には {chatbot} が回答します。チャットボット：{list}。管理者は {command} で変更できます。",
  chatbotShownDefault:
    "ここでの質問には {chatbot}（既定）が回答します。チャットボット：{list}。管理者は {command} で変更できます。",
  chatbotSet:
    "ここでの新しい会話は今後 {chatbot} が回答します。進行中の会話は元のチャットボットのままです。{new} で新しい会話を始められます。",
  chatbotAdminOnly: "チャットボットを選べるのは、このチャンネルの管理者だけです。",
  chatbotUnknown: "{name} という名前のチャットボットはありません。チャットボット：{list}。",
  chatbotUsage: "{show} または {use} を指定してください",
  chatbotHere: "このチャンネルのチャットボット：{chatbot}。",
  leadsSubscribedTo: "このチャンネルに {chatbot} の新しいリードを通知するようにしました。",
  leadsAlreadySubscribedTo: "このチャンネルにはすでに {chatbot} の新しいリードが通知されます。",
  leadsUnsubscribedFrom: "このチャンネルへの {chatbot} のリードの通知を停止しました。",
  leadsNotSubscribedTo: "このチャンネルにはもともと {chatbot} のリードが通知されていませんでした。",
  leadsOf: "{chatbot} のリード：",
  leadChatbot: "チャットボット",
  feedbackOfChatbot: "{chatbot}：👍 {up, number} · 👎 {down, number}",
};
